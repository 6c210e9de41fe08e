//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The Auto Mode children of lab/programs/program-automode.yaml, by type: the node role and its two
// managed policies, an EC2 access entry with its AmazonEKSAutoNodePolicy association for the
// node role and for the team-a class's own role, two NodeClasses and two NodePools, and the
// discovery tags — no Spot service-linked role, although the team pool allows Spot and the account
// has none (EKS makes it for Auto Mode).
var autoModeChildren = map[string]int{
	"aws:iam/role:Role": 1,
	"aws:ec2/tag:Tag":   4, // the program's discovery: the VPC's subnets and nodes' security group
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment":       2,
	"aws:eks/accessEntry:AccessEntry":                         2,
	"aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 2,
	"kubernetes:eks.amazonaws.com/v1:NodeClass":               2,
	"kubernetes:karpenter.sh/v1:NodePool":                     2,
}

const (
	autoNodePolicy     = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
	autoModeNodeClass  = "kubernetes:eks.amazonaws.com/v1:NodeClass"
	autoModeNodePool   = "kubernetes:karpenter.sh/v1:NodePool"
	accessEntryType    = "aws:eks/accessEntry:AccessEntry"
	accessPolicyType   = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
	rolePolicyAttachTy = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
)

var (
	nodeClassGVR = schema.GroupVersionResource{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}
	nodePoolGVR  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	crdGVR       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// What Auto Mode's objects stand on: EKS's CRDs (installed by the test, as EKS does).
	autoModeCRDNames = []string{"nodeclasses.eks.amazonaws.com", "nodepools.karpenter.sh"}
)

// TestAutoMode is `mode: autoMode` through the real engine on one world whose API server serves
// EKS's Auto Mode CRDs (installed first, as EKS does when Auto Mode is enabled): bad input fails
// the preview naming the field, then the preview, `pulumi up`, what moto, the stand-in's EKS
// record and the API server hold (node role with the two Auto Mode policies, EC2 entries with
// AmazonEKSAutoNodePolicy for both roles, the NodeClasses and NodePools, and no Helm release or
// Karpenter CRD object), a preview with no changes, and `pulumi destroy` (the pools and classes
// deleted before the access they rely on, EKS's CRDs left).
func TestAutoMode(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()

	start := time.Now()
	if err := w.Cluster.InstallAutoModeCRDs(ctx); err != nil {
		t.Fatal(err)
	}
	// What a destroy must return to: the API server with EKS's CRDs (and the APIServices the
	// API server registers for their groups, asynchronously).
	w.baseline = w.waitForSnapshot(t, "apiservices.apiregistration.k8s.io v1.eks.amazonaws.com", "apiservices.apiregistration.k8s.io v1.karpenter.sh")
	crdVersions := w.crdResourceVersions(t)
	t.Logf("Auto Mode CRDs installed in %s", time.Since(start).Round(100*time.Millisecond))

	program := func(extraInputs string) string {
		t.Helper()
		prog, err := w.ProgramFile("program-automode.yaml", lab.ProgramOptions{Inputs: extraInputs})
		if err != nil {
			t.Fatal(err)
		}
		return prog
	}
	if err := w.NewStack(program(`version: "1.15.2"`)); err != nil {
		t.Fatal(err)
	}

	// Bad input first, on the same world: nothing may be created.
	badPreview := func(t *testing.T, want string) {
		t.Helper()
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		if err == nil {
			t.Fatalf("preview succeeded:\n%s", stdout)
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("preview output does not say %q:\n%s\n%s", want, stdout, stderr)
		}
		w.assertNothingCreated(t)
	}
	t.Run("version with autoMode fails the preview naming it", func(t *testing.T) {
		badPreview(t, "version: not used with mode autoMode")
	})
	t.Run("a karpenter.k8s.aws requirement fails the preview naming it", func(t *testing.T) {
		gpu := "key: eks.amazonaws.com/instance-gpu-manufacturer"
		prog := program("")
		if strings.Count(prog, gpu) != 1 {
			t.Fatalf("lab/programs/program-automode.yaml: want one %q", gpu)
		}
		if _, err := w.Engine.NewProject(lab.ProjectName, strings.Replace(prog, gpu, "key: karpenter.k8s.aws/instance-family", 1)); err != nil {
			t.Fatal(err)
		}
		badPreview(t, `nodePools[0].requirements[0].key: "karpenter.k8s.aws/instance-family" is self-managed Karpenter's label; EKS Auto Mode labels its nodes "eks.amazonaws.com/instance-family"`)
	})
	if _, err := w.Engine.NewProject(lab.ProjectName, program("")); err != nil {
		t.Fatal(err)
	}

	t.Run("preview plans the Auto Mode children only", func(t *testing.T) {
		for _, r := range w.aws(t).Roles {
			if strings.HasPrefix(r.Path, "/aws-service-role/") {
				t.Fatalf("the account has the service-linked role %s: this scenario is an account without the Spot one", r.Name)
			}
		}
		p := w.preview(t)
		if errs := p.errors(); len(errs) > 0 {
			t.Fatalf("preview errors: %q", errs)
		}
		children, byName := plannedChildren(t, p)
		if got := countTypes(children); !reflect.DeepEqual(got, autoModeChildren) {
			t.Errorf("planned children by type:\n got %v\nwant %v", got, autoModeChildren)
		}
		// Known at preview: the entry's type and the association's policy and scope (nothing of
		// them waits for the cluster or the role).
		for _, name := range []string{"karpenter-node-access", "karpenter-nodeclass-team-a-access"} {
			if got := byName[name]["type"]; got != "EC2" {
				t.Errorf("%s.type = %v, want EC2 (an Auto Mode node entry)", name, got)
			}
			pol := byName[name+"-policy"]
			if pol["policyArn"] != autoNodePolicy || !reflect.DeepEqual(pol["accessScope"], map[string]any{"type": "cluster"}) {
				t.Errorf("%s-policy: policyArn %v, accessScope %v; want %s at cluster scope", name, pol["policyArn"], pol["accessScope"], autoNodePolicy)
			}
		}
		// What waits for the program's roles is unknown: the team role (the cluster's name, auto-named,
		// is known, as a pulumi-eks cluster's is).
		if hasUnknown(byName["karpenter-node-access"]["clusterName"]) || !hasUnknown(byName["karpenter-nodeclass-team-a-access"]["principalArn"]) {
			t.Errorf("the entries' cluster should be known and the team role's ARN unknown in the preview: %v, %v",
				byName["karpenter-node-access"]["clusterName"], byName["karpenter-nodeclass-team-a-access"]["principalArn"])
		}
		if v := byName["karpenter-nodepool-gpu"]["spec"]; v == nil || hasUnknown(v) {
			t.Errorf("karpenter-nodepool-gpu.spec should be known in the preview: %v", v)
		}
		w.assertNothingCreated(t)
	})

	// 22: stack, 2 providers, the cluster, the cluster's and team's roles, the component, its 15
	// children.
	const resources = "22"
	var out map[string]any
	t.Run("up creates the node role, its access, and the Auto Mode objects", func(t *testing.T) {
		start := time.Now()
		stdout := w.up(t)
		t.Logf("pulumi up: %s", time.Since(start).Round(100*time.Millisecond))
		if !strings.Contains(stdout, resources+" created") {
			t.Errorf("pulumi up: want %s resources created:\n%s", resources, stdout)
		}
		out = w.outputs(t)
		for _, k := range []string{"version", "controllerRoleArn", "interruptionQueueName", "releaseName", "crdReleaseName"} {
			if out[k] != "" {
				t.Errorf("stack output %s = %v, want empty with mode autoMode", k, out[k])
			}
		}
		if out["mode"] != "autoMode" || !reflect.DeepEqual(strs(out["nodePoolNames"]), []string{"gpu", "team-a"}) ||
			!reflect.DeepEqual(strs(out["nodeClassNames"]), []string{"gpu", "team-a"}) {
			t.Errorf("stack outputs mode %v, nodePoolNames %v, nodeClassNames %v", out["mode"], out["nodePoolNames"], out["nodeClassNames"])
		}
		checkAutoModeAWS(t, w, out)
		checkAutoModeKubernetes(t, w, out, crdVersions)
	})
	if t.Failed() {
		return
	}

	t.Run("a second preview shows no changes", func(t *testing.T) {
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
	})

	t.Run("the state orders the destroy", func(t *testing.T) {
		state, err := w.StateResources()
		if err != nil {
			t.Fatal(err)
		}
		checkAutoModeStateOrder(t, state)
	})

	t.Run("destroy removes everything but EKS's CRDs, pools and classes first", func(t *testing.T) {
		if stdout := w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview"); !strings.Contains(stdout, resources+" deleted") {
			t.Errorf("pulumi destroy: want %s deleted:\n%s", resources, stdout)
		}
		// moto and the record empty; the API server as it was with EKS's CRDs; everything the
		// stand-ins created deleted.
		w.assertNothingLeft(t)
		if got := w.crdResourceVersions(t); !reflect.DeepEqual(got, crdVersions) {
			t.Errorf("EKS's Auto Mode CRDs after the destroy: %v, want them untouched: %v", got, crdVersions)
		}
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		checkAutoModeDestroyOrder(t, ops)
	})
}

// waitForSnapshot snapshots the API server until it holds every one of want (at most 20 s).
func (w *world) waitForSnapshot(t *testing.T, want ...string) map[lab.KubeObject]bool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		snap, err := lab.SnapshotKubernetes(context.Background(), w.ControlPlane.Config)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, o := range want {
			if !snap[lab.KubeObject(o)] {
				missing = append(missing, o)
			}
		}
		if len(missing) == 0 {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API server does not hold %v after 20 s", missing)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// crdResourceVersions are the resourceVersions of EKS's Auto Mode CRDs: unchanged means no one
// (a chart, the component) wrote them.
func (w *world) crdResourceVersions(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range autoModeCRDNames {
		crd, err := w.Cluster.Dynamic.Resource(crdGVR).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("CRD %s: %v", name, err)
		}
		out[name] = crd.GetResourceVersion()
	}
	return out
}

// checkAutoModeAWS: moto holds the program's two roles and the node role with exactly Auto
// Mode's two managed policies, and nothing of a self-managed install; the stand-in's record
// holds an EC2 entry with AmazonEKSAutoNodePolicy at cluster scope for the node role and for
// the team's role, and nothing else.
func checkAutoModeAWS(t *testing.T, w *world, out map[string]any) {
	t.Helper()
	inv := w.aws(t)
	cluster, nodeArn, teamArn := str(out["clusterName"]), str(out["nodeRoleArn"]), str(out["teamANodeRoleArn"])
	if !slices.Contains(inv.Clusters, cluster) || nodeArn == "" || !strings.Contains(teamArn, ":role/e2e-team-a-node-") {
		t.Fatalf("stack outputs clusterName %q (EKS holds %v), nodeRoleArn %q, teamANodeRoleArn %q", cluster, inv.Clusters, nodeArn, teamArn)
	}
	var roles []string
	for _, r := range inv.Roles {
		if strings.HasPrefix(r.Path, "/aws-service-role/") {
			t.Errorf("service-linked role %s in moto: the component makes none for Auto Mode (EKS makes the Spot one)", r.Name)
			continue
		}
		roles = append(roles, r.Arn)
	}
	if len(roles) != 3 || !slices.Contains(roles, nodeArn) || !slices.Contains(roles, teamArn) {
		t.Errorf("roles in moto: %v, want the cluster's, the team's and the node role %s", roles, nodeArn)
	}
	node := inv.Role(str(out["nodeRoleName"]))
	if node == nil || node.Arn != nodeArn {
		t.Fatalf("the node role %s (stack output nodeRoleName %v) is not in moto", nodeArn, out["nodeRoleName"])
	}
	wantNode := []string{
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
		"arn:aws:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
	}
	if !reflect.DeepEqual(node.AttachedPolicyArns, wantNode) {
		t.Errorf("node role's policies:\n got %v\nwant %v", node.AttachedPolicyArns, wantNode)
	}
	if !strings.Contains(node.AssumeRolePolicy, `"ec2.amazonaws.com"`) {
		t.Errorf("node trust: want ec2.amazonaws.com, got %s", node.AssumeRolePolicy)
	}
	if team := inv.Role(teamArn[strings.LastIndex(teamArn, "/")+1:]); team == nil || len(team.AttachedPolicyArns) != 0 {
		t.Errorf("the team's role: want it in moto with no policy attached by the component, got %+v", team)
	}
	// No controller, queue, rules, instance profile or OIDC provider.
	if len(inv.Policies)+len(inv.InstanceProfiles)+len(inv.OIDCProviders)+len(inv.Queues)+len(inv.Rules)+len(inv.Addons)+len(inv.PodIdentityAssociations) > 0 {
		t.Errorf("moto holds more than the roles and the record more than the access: %v", inv.Leftovers())
	}

	rec, err := w.EKSRecord()
	if err != nil {
		t.Fatalf("the aws stand-in's EKS record: %v", err)
	}
	wantEntries := []string{cluster + ":" + nodeArn, cluster + ":" + teamArn}
	sort.Strings(wantEntries)
	if got := sortedKeys(rec.AccessEntries); !reflect.DeepEqual(got, wantEntries) {
		t.Errorf("EKS access entries (stand-in record):\n got %v\nwant %v", got, wantEntries)
	}
	var wantAssoc []string
	for _, principal := range []string{nodeArn, teamArn} {
		id := cluster + ":" + principal
		if e := rec.AccessEntries[id]; e != nil && (e["type"] != "EC2" || e["userName"] != "system:node:{{EC2PrivateDNSName}}") {
			t.Errorf("access entry %s: type %v, userName %v; want EC2 (an Auto Mode node)", id, e["type"], e["userName"])
		}
		assoc := cluster + "#" + principal + "#" + autoNodePolicy
		wantAssoc = append(wantAssoc, assoc)
		if a := rec.AccessPolicies[assoc]; a != nil && !reflect.DeepEqual(a["accessScope"], map[string]any{"type": "cluster"}) {
			t.Errorf("access policy association %s: accessScope %v, want {type: cluster}", assoc, a["accessScope"])
		}
	}
	sort.Strings(wantAssoc)
	if got := sortedKeys(rec.AccessPolicies); !reflect.DeepEqual(got, wantAssoc) {
		t.Errorf("EKS access policy associations (stand-in record):\n got %v\nwant %v", got, wantAssoc)
	}
}

// checkAutoModeKubernetes: the API server holds exactly the two NodeClasses and two NodePools
// more than with EKS's CRDs alone — no Helm release, no namespace, no Karpenter CRD — on EKS's
// CRDs, untouched; the classes name their roles and carry the Auto Mode fields, the pools name
// their classes in eks.amazonaws.com.
func checkAutoModeKubernetes(t *testing.T, w *world, out map[string]any, crdVersions map[string]string) {
	t.Helper()
	ctx := context.Background()
	want := []string{
		"nodeclasses.eks.amazonaws.com gpu", "nodeclasses.eks.amazonaws.com team-a",
		"nodepools.karpenter.sh gpu", "nodepools.karpenter.sh team-a",
	}
	if got := w.newKubeObjects(t); !reflect.DeepEqual(got, want) {
		t.Errorf("new objects on the API server:\n got %v\nwant %v", got, want)
	}
	if got := w.crdResourceVersions(t); !reflect.DeepEqual(got, crdVersions) {
		t.Errorf("EKS's Auto Mode CRDs were written: resourceVersions %v, were %v", got, crdVersions)
	}
	for _, name := range []string{"ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh"} {
		if _, err := w.Cluster.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{}); err == nil {
			t.Errorf("CRD %s exists: Karpenter's CRD release (or chart) was installed", name)
		}
	}
	secrets, err := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).
		List(ctx, metav1.ListOptions{FieldSelector: "type=helm.sh/release.v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		t.Errorf("Helm release record %s/%s: no release may be installed with mode autoMode", s.GetNamespace(), s.GetName())
	}

	get := func(gvr schema.GroupVersionResource, name string) map[string]any {
		obj, err := w.Cluster.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s %s: %v", gvr.Resource, name, err)
		}
		return obj.Object
	}
	field := func(obj map[string]any, path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
		return v
	}
	gpu, team := get(nodeClassGVR, "gpu"), get(nodeClassGVR, "team-a")
	for _, c := range []struct {
		class map[string]any
		path  []string
		want  any
	}{
		{gpu, []string{"spec", "role"}, str(out["nodeRoleName"])},
		{gpu, []string{"spec", "ephemeralStorage", "size"}, "200Gi"},
		{gpu, []string{"spec", "networkPolicy"}, "DefaultDeny"},
		{gpu, []string{"spec", "networkPolicyEventLogs"}, "Enabled"},
		{gpu, []string{"spec", "advancedNetworking", "ipv4PrefixSize"}, "32"},
		{team, []string{"spec", "role"}, str(out["teamANodeRoleName"])},
	} {
		if got := field(c.class, c.path...); got != c.want {
			t.Errorf("NodeClass %s .%s = %v, want %v", field(c.class, "metadata", "name"), strings.Join(c.path, "."), got, c.want)
		}
	}
	b, _ := json.Marshal(field(team, "spec", "securityGroupSelectorTerms"))
	if !strings.Contains(string(b), `"karpenter.sh/discovery":"`+str(out["clusterName"])+`"`) {
		t.Errorf("NodeClass team-a: security groups selected by %s, want the discovery tag of the cluster", b)
	}
	for _, name := range []string{"gpu", "team-a"} {
		pool := get(nodePoolGVR, name)
		ref := field(pool, "spec", "template", "spec", "nodeClassRef")
		if want := map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": name}; !reflect.DeepEqual(ref, want) {
			t.Errorf("NodePool %s: nodeClassRef %v, want %v", name, ref, want)
		}
		if name != "gpu" {
			continue
		}
		taints, _ := json.Marshal(field(pool, "spec", "template", "spec", "taints"))
		reqs, _ := json.Marshal(field(pool, "spec", "template", "spec", "requirements"))
		if string(taints) != `[{"effect":"NoSchedule","key":"nvidia.com/gpu"}]` ||
			!strings.Contains(string(reqs), `"key":"eks.amazonaws.com/instance-gpu-manufacturer"`) ||
			field(pool, "spec", "limits", "nvidia.com/gpu") != "8" {
			t.Errorf("NodePool gpu: taints %s, requirements %s, limits %v", taints, reqs, field(pool, "spec", "limits"))
		}
	}
}

// autoModeAccess says whether a resource is node access the pools and classes rely on: an access
// entry, its association, or the node role and its attachments.
func autoModeAccess(typ, name string) bool {
	return typ == accessEntryType || typ == accessPolicyType || typ == rolePolicyAttachTy ||
		(typ == "aws:iam/role:Role" && name == "karpenter-node")
}

func autoModeObject(typ string) bool { return typ == autoModeNodeClass || typ == autoModeNodePool }

// checkAutoModeStateOrder: from the state's recorded dependencies (which every destroy honours;
// see checkStateOrder), each NodePool and NodeClass depends, directly or not, on every access
// entry, association and node-role attachment (and the node role).
func checkAutoModeStateOrder(t *testing.T, state []lab.StateResource) {
	t.Helper()
	deps := map[string][]string{}
	var objects, access []string
	for _, r := range state {
		for _, d := range r.Dependencies {
			deps[r.Name()] = append(deps[r.Name()], urnName(d))
		}
		switch {
		case autoModeObject(r.Type):
			objects = append(objects, r.Name())
		case autoModeAccess(r.Type, r.Name()):
			access = append(access, r.Name())
		}
	}
	if len(objects) != 4 || len(access) != 7 {
		t.Fatalf("state: %d NodePools/NodeClasses (want 4), %d access resources (want 7: 2 entries, 2 associations, node role, 2 attachments)", len(objects), len(access))
	}
	for _, o := range objects {
		seen := map[string]bool{}
		stack := []string{o}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, d := range deps[n] {
				if !seen[d] {
					seen[d] = true
					stack = append(stack, d)
				}
			}
		}
		for _, a := range access {
			if !seen[a] {
				t.Errorf("%s does not depend on %s: a destroy may remove the nodes' access while the pool still launches nodes", o, a)
			}
		}
	}
}

// checkAutoModeDestroyOrder reads the stand-ins' shared log, as checkDestroyOrder does: every
// NodePool and NodeClass delete completed before any access entry, association, or the node
// role's attachments (or the role) was deleted — a pool's nodes keep joining and running until
// the pool is gone.
func checkAutoModeDestroyOrder(t *testing.T, ops []lab.Op) {
	t.Helper()
	var objects, access []lab.Op
	for _, op := range ops {
		switch {
		case op.Op != "Delete":
		case autoModeObject(op.Type):
			objects = append(objects, op)
		case autoModeAccess(op.Type, op.Name):
			access = append(access, op)
		}
	}
	if len(objects) != 4 || len(access) != 7 {
		t.Errorf("deleted %d NodePools/NodeClasses (want 4) and %d access resources (want 7)", len(objects), len(access))
	}
	for _, o := range objects {
		for _, a := range access {
			if !o.Time.Before(a.Time) {
				t.Errorf("%s %s was deleted at %s, not before %s %s (%s): nodes of the pool would lose their access first",
					o.Type, o.Name, o.Time.Format("15:04:05.000000"), a.Type, a.Name, a.Time.Format("15:04:05.000000"))
			}
		}
	}
	if t.Failed() {
		var lines []string
		for _, op := range ops {
			if op.Op == "Delete" {
				lines = append(lines, op.String())
			}
		}
		t.Logf("deletes, in completion order:\n%s", strings.Join(lines, "\n"))
	}
}
