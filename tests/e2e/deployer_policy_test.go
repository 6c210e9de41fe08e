//go:build e2e

package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The deployer's policy (docs/deployer-policy.json), held by every world: what the component's
// operations of the world need (each create, read, update and delete of its children and each
// read function, as terraform-provider-aws makes them: lab/deployer.go) must be allowed by it, and,
// when the whole scenario suite ran, each of its statements must be the only one allowing an
// action some scenario needed — a statement no scenario needs could be removed without a test
// failing, so the suite fails naming it.

// deployerNeeds records, per statement, the scenarios that needed it and for what.
var deployerNeeds = struct {
	sync.Mutex
	by map[string][]string // Sid -> "TestX (iam:CreateRole, ...)"
}{by: map[string][]string{}}

// checkDeployerCalls checks the world's operations against the deployer policy (a t.Cleanup of
// every world, so it sees the destroy too).
func checkDeployerCalls(t *testing.T, w *lab.World) {
	t.Helper()
	ops, err := lab.ReadOpLog(w.OpLog)
	if err != nil {
		t.Errorf("deployer policy: %v", err)
		return
	}
	actions, err := lab.DeployerActions(ops)
	if err != nil {
		t.Errorf("deployer policy: %v", err)
		return
	}
	if len(actions) == 0 {
		return
	}
	v, err := lab.CheckDeployerPolicy(actions)
	if err != nil {
		t.Errorf("deployer policy: %v", err)
		return
	}
	for _, a := range sortedKeys(v.Denied) {
		t.Errorf("docs/deployer-policy.json does not allow %s, which terraform-provider-aws calls for %s", a, strings.Join(v.Denied[a], ", "))
	}
	deployerNeeds.Lock()
	defer deployerNeeds.Unlock()
	for sid, only := range v.OnlyBy {
		sort.Strings(only)
		deployerNeeds.by[sid] = append(deployerNeeds.by[sid], fmt.Sprintf("%s (%s)", t.Name(), strings.Join(only, ", ")))
	}
}

// suiteSkip is what `make e2e` skips of the package when it runs the scenario suite: the SDK
// programs and the README snippets, which tests/e2e/e2e-programs.sh runs on their own.
const suiteSkip = "^(TestSDKPrograms|TestREADMESnippets|TestExamples)$"

// deployerStatementsBite runs after the scenarios passed: each statement of the policy must have
// been the only one allowing an action of some scenario. It says which; for a part of the suite
// (-run, or a -skip other than make e2e's) it says it did not check.
func deployerStatementsBite() int {
	run, skip := flag.Lookup("test.run").Value.String(), flag.Lookup("test.skip").Value.String()
	if run != "" || (skip != "" && skip != suiteSkip) {
		fmt.Fprintf(os.Stderr, "deployer policy: each statement's use is checked only when the whole scenario suite runs (-run %q -skip %q given)\n", run, skip)
		return 0
	}
	path, err := lab.DeployerPolicyPath()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: deployer policy:", err)
		return 1
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: deployer policy:", err)
		return 1
	}
	var policy struct{ Statement []struct{ Sid string } }
	if err := json.Unmarshal(data, &policy); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: deployer policy:", err)
		return 1
	}
	code := 0
	fmt.Fprintln(os.Stderr, "deployer policy: what removing each statement would deny, and in which scenario")
	for _, s := range policy.Statement {
		needs := deployerNeeds.by[s.Sid]
		if len(needs) == 0 {
			fmt.Fprintf(os.Stderr, "FAIL: deployer policy: no scenario needs statement %s: remove it, or add the scenario that does\n", s.Sid)
			code = 1
			continue
		}
		sort.Strings(needs)
		fmt.Fprintf(os.Stderr, "  %s: %d scenarios, first %s\n", s.Sid, len(needs), needs[0])
	}
	return code
}
