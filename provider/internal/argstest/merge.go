package argstest

import (
	"encoding/json"
	"maps"
	"testing"
)

// The args the tests start from, as render's JSON (without "type"; "name" is the component's
// name): the plan's tests decode them, the top package's render them.
const (
	// DefaultArgs are the smallest self-managed args.
	DefaultArgs = `{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"}`
	// AutoModeArgs are the smallest Auto Mode args.
	AutoModeArgs = `{"clusterName":"demo","mode":"autoMode"}`
)

// MergeJSON sets extra's inputs on base (both JSON objects); a key of extra replaces base's
// value whole.
func MergeJSON(base, extra string) (string, error) {
	var b, more map[string]any
	if err := json.Unmarshal([]byte(base), &b); err != nil {
		return "", err
	}
	if err := json.Unmarshal([]byte(extra), &more); err != nil {
		return "", err
	}
	maps.Copy(b, more)
	out, err := json.Marshal(b)
	return string(out), err
}

// Merge sets extra's inputs on base (both JSON objects).
func Merge(t testing.TB, base, extra string) string {
	t.Helper()
	out, err := MergeJSON(base, extra)
	if err != nil {
		t.Fatalf("argstest: %v", err)
	}
	return out
}

// WithDefaults sets extra's inputs on DefaultArgs.
func WithDefaults(t testing.TB, extra string) string {
	t.Helper()
	return Merge(t, DefaultArgs, extra)
}

// AutoModeWith sets extra's inputs on AutoModeArgs.
func AutoModeWith(t testing.TB, extra string) string {
	t.Helper()
	return Merge(t, AutoModeArgs, extra)
}

// AdoptGettingStarted are the args that adopt a getting-started install of 1.14.1 on cluster demo
// (render's account 123456789012, us-west-2), with its interruption rules' names.
const AdoptGettingStarted = `{"clusterName":"demo","version":"1.14.1","controllerIdentity":"podIdentity",
	"adopt":{"podIdentityAssociationId":"a-0123456789abcdef0","interruptionRuleNames":{
		"scheduledChange":"Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F",
		"spotInterruption":"Karpenter-demo-SpotInterruptionRule-2B3C4D5E6F7A",
		"rebalance":"Karpenter-demo-RebalanceRule-3C4D5E6F7A8B",
		"stateChange":"Karpenter-demo-InstanceStateChangeRule-4D5E6F7A8B9C",
		"capacityReservation":"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"}}}`
