package catalog_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
)

// Controller policies of the official getting-started CloudFormation templates of each
// generation (reference/karpenter-cloudformation/cfn-v*.yaml), with the template parameters
// substituted: partition aws, region us-west-2, account 123456789012, cluster demo. The node
// role and queue ARNs are ${NodeRoleArn} and ${QueueArn} (filled from the render outputs);
// cfn-v0.31 names its node role KarpenterNodeRole-${ClusterName} in PassRole, where the
// component passes its own node role. Transcribed once from the templates; the tests do not
// read the reference files.
var officialControllerPolicies = readOfficialControllerPolicies()

// readOfficialControllerPolicies reads provider/testdata/official/cfn-v<generation>-controller-policy.json,
// keyed by generation ("0.31", "0.37", "1.0", "1.8").
func readOfficialControllerPolicies() map[string]string {
	files, err := filepath.Glob(rendertest.Testdata("official", "cfn-v*-controller-policy.json"))
	if err != nil || len(files) == 0 {
		panic("provider/testdata/official: no controller policies")
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		key := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "cfn-v"), "-controller-policy.json")
		out[key] = strings.TrimSuffix(string(b), "\n")
	}
	return out
}
