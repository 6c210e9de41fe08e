package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rule names CloudFormation gives the getting-started template's rules (stack
// Karpenter-demo), as `aws events list-rule-names-by-target` lists them.
const gettingStartedRules = `{"scheduledChange":"Karpenter-demo-ScheduledChangeRule-1A2B3C4D5E6F",
	"spotInterruption":"Karpenter-demo-SpotInterruptionRule-2B3C4D5E6F7A",
	"rebalance":"Karpenter-demo-RebalanceRule-3C4D5E6F7A8B",
	"stateChange":"Karpenter-demo-InstanceStateChangeRule-4D5E6F7A8B9C",
	"capacityReservation":"Karpenter-demo-CapacityReservationInterruptionRule-5E6F7A8B"}`

// planAdopting plans args with the cluster name known at construct, as it is for an existing
// cluster.
func planAdopting(t *testing.T, args string) (*Plan, error) {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &m))
	cluster, _ := m["clusterName"].(string)
	known := Known{Value: func(path *field.Path) (string, bool) {
		return cluster, path.String() == "clusterName" && cluster != ""
	}}
	return New("karpenter", argstest.Decode[inputs.KarpenterArgs](t, args), known, nil)
}

func adoptArgs(t *testing.T, version, adopt string) string {
	t.Helper()
	return argstest.WithDefaults(t, `{"version":"`+version+`","adopt":`+adopt+`}`)
}

// Unset names are those the getting-started guide of the version gives: the template's node
// role, policies, queue (and, before 0.32, instance profile) and eksctl's controller role.
func TestAdoptionTakesTheGettingStartedNames(t *testing.T) {
	p, err := planAdopting(t, adoptArgs(t, "1.14.1", `{"interruptionRuleNames":`+gettingStartedRules+`}`))
	require.NoError(t, err)
	require.NotNil(t, p.Adopt)
	a := p.Adopt
	assert.Equal(t, "KarpenterNodeRole-demo", a.NodeRole) // cfn-v1.14 RoleName
	assert.Equal(t, "demo-karpenter", a.ControllerRole)   // the guide's eksctl roleName
	assert.Equal(t, "demo", a.Queue)                      // cfn-v1.14 QueueName
	// The 1.x template creates no instance profile: the name is the one an install made before
	// 0.32 has, which the adoption imports when it exists (ReadAdoption).
	assert.Equal(t, "KarpenterNodeInstanceProfile-demo", a.InstanceProfile)
	assert.Equal(t, "KarpenterControllerNodeLifecyclePolicy-demo", a.ControllerPolicies["node-lifecycle"])
	assert.Equal(t, "KarpenterControllerIAMIntegrationPolicy-demo", a.ControllerPolicies["iam-integration"])
	assert.Equal(t, "KarpenterControllerEKSIntegrationPolicy-demo", a.ControllerPolicies["eks-integration"])
	assert.Equal(t, "KarpenterControllerInterruptionPolicy-demo", a.ControllerPolicies["interruption"])
	assert.Equal(t, "KarpenterControllerResourceDiscoveryPolicy-demo", a.ControllerPolicies["resource-discovery"])
	assert.Equal(t, "KarpenterControllerZonalShiftPolicy-demo", a.ControllerPolicies["zonal-shift"])
	assert.Equal(t, "Karpenter-demo-RebalanceRule-3C4D5E6F7A8B", a.Rules["rebalance"])

	old, err := planAdopting(t, adoptArgs(t, "0.31.4", `{"interruptionRuleNames":{"scheduledChange":"a","spotInterruption":"b","rebalance":"c","stateChange":"d"}}`))
	require.NoError(t, err)
	assert.Equal(t, "KarpenterNodeInstanceProfile-demo", old.Adopt.InstanceProfile) // cfn-v0.31 InstanceProfileName
	assert.Equal(t, "KarpenterControllerPolicy-demo", old.Adopt.ControllerPolicies["policy"])
}

func TestAdoptionNamesGivenWin(t *testing.T) {
	p, err := planAdopting(t, adoptArgs(t, "1.14.1", `{"interruptionRuleNames":`+gettingStartedRules+`,
		"nodeRoleName":"Karpenter-demo-2026","controllerRoleName":"KarpenterController-2026","interruptionQueueName":"Karpenter-demo",
		"controllerPolicyNames":{"node-lifecycle":"KarpenterController-2026"}}`))
	require.NoError(t, err)
	assert.Equal(t, "Karpenter-demo-2026", p.Adopt.NodeRole)
	assert.Equal(t, "KarpenterController-2026", p.Adopt.ControllerRole)
	assert.Equal(t, "Karpenter-demo", p.Adopt.Queue)
	assert.Equal(t, "KarpenterController-2026", p.Adopt.ControllerPolicies["node-lifecycle"])
	assert.Equal(t, "KarpenterControllerInterruptionPolicy-demo", p.Adopt.ControllerPolicies["interruption"], "a key not given keeps the template's name")
}

func TestNoAdoptionWithoutAdopt(t *testing.T) {
	p, err := planAdopting(t, argstest.DefaultArgs)
	require.NoError(t, err)
	assert.Nil(t, p.Adopt)
}

// What adoption cannot find or AWS would refuse fails at preview, naming the field.
func TestAdoptionRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, version, adopt, extra string
		want                        []string
	}{
		{"rules unnamed", "1.14.1", `{}`, ``, []string{
			`adopt.interruptionRuleNames["scheduledChange"]: required (the rule for "AWS Health Event"; CloudFormation named it <stack>-ScheduledChangeRule-<random>)`,
			`adopt.interruptionRuleNames["capacityReservation"]: required`,
			"aws events list-rule-names-by-target --target-arn",
		}},
		{"a rule the release lacks", "1.8.5", `{"interruptionRuleNames":` + gettingStartedRules + `}`, ``, []string{
			`adopt.interruptionRuleNames["capacityReservation"]: "capacityReservation" is not one of scheduledChange, spotInterruption, rebalance, stateChange`,
		}},
		{"rules without interruption handling", "1.14.1", `{"interruptionRuleNames":{"rebalance":"r"}}`, `{"interruptionHandling":false}`, []string{
			"adopt.interruptionRuleNames: only with interruptionHandling",
		}},
		{"a role name IAM refuses", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `,"nodeRoleName":"Karpenter node role"}`, ``, []string{
			`adopt.nodeRoleName: "Karpenter node role" is not an IAM role name (AWS allows letters, digits and + = , . @ _ -)`,
		}},
		{"a role name too long", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `,"controllerRoleName":"` + strings.Repeat("a", 65) + `"}`, ``, []string{
			"is 65 characters, over AWS's limit of 64 for an IAM role name",
		}},
		{"a queue name SQS refuses", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `,"interruptionQueueName":"demo.fifo"}`, ``, []string{
			`adopt.interruptionQueueName: "demo.fifo" is not an SQS queue name`,
		}},
		{"a policy key the component has not", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `,"controllerPolicyNames":{"nodeLifecycle":"x"}}`, ``, []string{
			`adopt.controllerPolicyNames["nodeLifecycle"]: "nodeLifecycle" is not one of policy, node-lifecycle, iam-integration`,
		}},
		{"pod identity without its association", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `}`, `{"controllerIdentity":"podIdentity"}`, []string{
			"adopt.podIdentityAssociationId: required",
			"aws eks list-pod-identity-associations --cluster-name <clusterName>",
		}},
		{"an association with IRSA", "1.14.1", `{"interruptionRuleNames":` + gettingStartedRules + `,"podIdentityAssociationId":"a-1"}`, ``, []string{
			"adopt.podIdentityAssociationId: only with controllerIdentity podIdentity or both",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := adoptArgs(t, tc.version, tc.adopt)
			if tc.extra != "" {
				args = argstest.Merge(t, args, tc.extra)
			}
			_, err := planAdopting(t, args)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestAdoptionNeedsTheClusterNameKnown(t *testing.T) {
	msg := planError(t, adoptArgs(t, "1.14.1", `{"interruptionRuleNames":`+gettingStartedRules+`}`))
	assert.Contains(t, msg, "adopt: needs clusterName known when the component is constructed")
}

func TestAdoptionIsNotForAutoMode(t *testing.T) {
	msg := planError(t, argstest.AutoModeWith(t, `{"adopt":{}}`))
	assert.Contains(t, msg, "adopt: not used with mode autoMode (EKS runs Karpenter")
}

// A rule the install lacks is named "": the component creates it instead of importing it.
func TestAdoptionCreatesARuleNamedEmpty(t *testing.T) {
	p, err := planAdopting(t, adoptArgs(t, "1.14.1", `{"interruptionRuleNames":{"scheduledChange":"s","spotInterruption":"p","rebalance":"r","stateChange":"c","capacityReservation":""}}`))
	require.NoError(t, err)
	assert.Equal(t, "s", p.Adopt.Rules["scheduledChange"])
	_, has := p.Adopt.Rules["capacityReservation"]
	assert.False(t, has)
}

// The chart writes controllerImageRepository into the Deployment unquoted: a value that is not an
// image repository would break the chart's template at `up` (found by the generated inputs).
func TestControllerImageRepositoryMustBeARepository(t *testing.T) {
	msg := planError(t, argstest.WithDefaults(t, `{"controllerImageRepository":"[settings\n"}`))
	assert.Contains(t, msg, `controllerImageRepository: "[settings\n" is not an image repository`)
	for _, ok := range []string{"123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller", "registry.local:5000/karpenter/controller", "example.com/mirror"} {
		_, err := plan(t, argstest.WithDefaults(t, `{"controllerImageRepository":"`+ok+`"}`))
		assert.NoError(t, err, ok)
	}
}
