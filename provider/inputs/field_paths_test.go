package inputs

import (
	"errors"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every check returns field errors: the path of the input it refuses, then what is wrong, one
// problem per line.
func TestChecksReturnFieldErrors(t *testing.T) {
	rel, err := catalog.LookupRelease("1.15.1", false)
	require.NoError(t, err)
	weight, family := 0, "AL2"
	pools := []NodePoolSpec{{Name: "Bad_Name", Weight: &weight,
		Labels:       map[string]string{"karpenter.sh/foo": "x"},
		Requirements: []Requirement{{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demnd"}}}}}
	classes := []NodeClassSpec{{Name: "c", AmiFamily: &family, AmiSelectorTerms: []AmiSelectorTerm{{}},
		Tags:    map[string]string{"aws:x": "y"},
		Kubelet: &KubeletConfiguration{SystemReserved: map[string]string{"gpu": "1"}, AdditionalSettings: map[string]any{"maxPods": 5}}}}
	errs := ValidateProvisioning(pools, pools, classes, rel)
	statement := ValidatePolicyStatement(field.NewPath("controllerPolicyStatements").Index(0), PolicyStatement{NotActions: []string{"bad action"}})
	errs = append(append(errs, statement), CheckComponentTags(map[string]string{"": "x"}, classes, rel)...)

	joined := field.Join(errs...)
	require.Error(t, joined)
	lines := strings.Split(joined.Error(), "\n")
	problems := 0
	for _, err := range joined.(field.List) {
		var l field.List
		if errors.As(err, &l) {
			problems += len(l)
			continue
		}
		var e *field.Error
		require.True(t, errors.As(err, &e), "not a field.Error: %v", err)
		assert.True(t, strings.HasPrefix(e.Error(), e.Path.String()+": "), e.Error())
		problems++
	}
	assert.Equal(t, len(lines), problems, "one problem per line")
	for _, want := range []string{
		`nodePools[0].name: "Bad_Name" is not a valid name`,
		`nodePools[0].labels["karpenter.sh/foo"]: label domain "karpenter.sh" is restricted`,
		`nodePools[0].requirements[0].values[0]: "on-demnd" is not a value Karpenter sets on karpenter.sh/capacity-type`,
		`nodePools[0].weight: 0 is not between 1 and 100`,
		`nodeClasses[0].tags["aws:x"]: keys starting with "aws:" are reserved for AWS's own tags`,
		`nodeClasses[0].kubelet.additionalSettings.maxPods: maxPods has a typed field; set nodeClasses[0].kubelet.maxPods instead`,
		// A map key is a key of the path, as for labels and tags.
		`nodeClasses[0].kubelet.systemReserved["gpu"]: "gpu" is not one of cpu, memory, ephemeral-storage, pid`,
		// A notAction is named in notActions.
		`controllerPolicyStatements[0].notActions[0]: "bad action" is not an IAM action`,
		`tags[""]: a tag key is 1-128 characters`,
	} {
		assert.Contains(t, joined.Error(), want)
	}
}
