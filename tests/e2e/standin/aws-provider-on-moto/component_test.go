//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The component's side of the contract: the tokens it registers (provider/children/resources.go) and the
// inputs it gives each child (the committed render goldens, provider/testdata/golden).

// repoRoot is the repository's root (repo.Root).
func repoRoot() string {
	root, err := repo.Root()
	if err != nil {
		panic(err)
	}
	return root
}

// TestServesTheComponentTokens: the stand-in serves exactly the aws tokens the component uses,
// plus the types marked forPrograms (declared by the engine tests' programs, never by the
// component), the functions the programs' stand-ins invoke (programInvokes) and the reads for the
// component's checks against the cluster (inputCheckInvokes), which the component lists or will.
func TestServesTheComponentTokens(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(), "provider", "children", "resources.go"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`"(aws:[^"]+)"`).FindAllSubmatch(src, -1) {
		if !contains(inputCheckInvokes, string(m[1])) {
			want = append(want, string(m[1]))
		} else if invokes[string(m[1])] == nil {
			t.Errorf("the component reads %s, which the stand-in does not serve", m[1])
		}
	}
	var got []string
	for tok, typ := range types {
		if !typ.forPrograms {
			got = append(got, tok)
		}
	}
	for _, tok := range sortedKeys(invokes) {
		if !contains(inputCheckInvokes, tok) && !contains(programInvokes, tok) {
			got = append(got, tok)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("served tokens:\n%s\nprovider/children/resources.go lists:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type golden struct {
	Resources []struct {
		Type      string         `json:"type"`
		Name      string         `json:"name"`
		DependsOn []string       `json:"dependsOn"`
		Inputs    map[string]any `json:"inputs"`
	} `json:"resources"`
}

func readGolden(t *testing.T, name string) golden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), "provider", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestComponentInputsCheck: every aws child of every render golden passes Check as it is.
func TestComponentInputsCheck(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	files, _ := filepath.Glob(filepath.Join(repoRoot(), "provider", "testdata", "golden", "*.json"))
	if len(files) == 0 {
		t.Fatal("no render goldens in provider/testdata/golden")
	}
	n := 0
	for _, f := range files {
		for _, r := range readGolden(t, filepath.Base(f)).Resources {
			if !strings.HasPrefix(r.Type, "aws:") {
				continue
			}
			n++
			if _, failures := p.checkFailures(t, r.Type, r.Name, resource.NewPropertyMapFromMap(r.Inputs), nil); len(failures) > 0 {
				t.Errorf("%s: %s %s: %v", filepath.Base(f), r.Type, r.Name, failures)
			}
		}
	}
	t.Logf("%d aws children checked", n)
}

// TestComponentDefaultInstall creates the aws children of the default install (the render
// golden's inputs, in registration order) in moto, shows a second pass has no changes, that
// deleting the node role before its attachments fails, and destroys them in reverse order.
func TestComponentDefaultInstall(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	// The render's cluster (clusterName "demo"): EKS refuses an access entry on a cluster it does
	// not have, or one without the access-entry API.
	cluster := createTestCluster(t, p, "demo", pmap{"name": sv("demo"),
		"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API_AND_CONFIG_MAP")})})
	byName := map[string]*res{}
	var created []*res
	t.Cleanup(func() {
		for i := len(created) - 1; i >= 0; i-- {
			_ = p.tryDelete(created[i])
		}
	})
	for _, r := range readGolden(t, "default.json").Resources {
		if !strings.HasPrefix(r.Type, "aws:") {
			continue
		}
		in := resource.NewPropertyMapFromMap(r.Inputs)
		if r.Type == tQueuePolicy {
			// The render's queue URL is AWS's form; moto's queue has a URL of its own.
			in["queueUrl"] = sv(str(byName[r.DependsOn[0]].outputs, "url"))
		}
		c := p.create(t, r.Type, r.Name, in)
		byName[r.Name] = c
		created = append(created, c)
	}
	if len(created) < 20 {
		t.Fatalf("only %d aws children in the default golden", len(created))
	}
	node := byName["karpenter-node"]
	attached, err := moto().iam.ListAttachedRolePolicies(context.Background(), &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(node.id)})
	if err != nil || len(attached.AttachedPolicies) != 4 {
		t.Errorf("node role policies in moto: %v %v", attached, err)
	}
	// The controller's policies attached to its role, as the component asked.
	ctl := byName["karpenter-controller"]
	attached, _ = moto().iam.ListAttachedRolePolicies(context.Background(), &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(ctl.id)})
	policies := 0
	for _, c := range created {
		if c.typ == tPolicy {
			policies++
		}
	}
	if len(attached.AttachedPolicies) != policies || policies == 0 {
		t.Errorf("controller role has %d policies attached, the component made %d", len(attached.AttachedPolicies), policies)
	}

	// A second `pulumi up` with the same inputs: no changes anywhere.
	for _, c := range created {
		news := c.inputs.Copy()
		delete(news, defaultsKey)
		if d := p.diff(t, c, p.check(t, c.typ, c.name, news, c.inputs)); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
			t.Errorf("%s %s: second pass diff %v", c.typ, c.name, d.GetDiffs())
		}
	}

	// A destroy that takes the node role before its attachments fails.
	if err := p.tryDelete(node); err == nil || !strings.Contains(err.Error(), "DeleteConflict") {
		t.Errorf("deleting the node role first: want DeleteConflict, got %v", err)
	}

	for i := len(created) - 1; i >= 0; i-- {
		p.delete(t, created[i])
	}
	created = nil
	roles, _ := moto().iam.ListRoles(context.Background(), &iam.ListRolesInput{})
	for _, r := range roles.Roles {
		if strings.HasPrefix(aws.ToString(r.RoleName), "karpenter-") {
			t.Errorf("role %s left in moto", aws.ToString(r.RoleName))
		}
	}
	var rec eksRecord
	data, _ := os.ReadFile(filepath.Join(env.stateDir, "aws-eks.json"))
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.AccessEntries) != 0 {
		t.Errorf("EKS record after destroy: %s (%v)", data, err)
	}
	p.delete(t, cluster)
}
