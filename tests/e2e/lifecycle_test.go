//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// TestDefaultInstall is the life of the default install through the real engine, on one moto and
// one API server, on an EKS cluster the program makes: the first preview (the cluster does not
// exist yet, oidcProviderArn is unknown: the component's checks wait), `pulumi up` (the cluster
// read and checked before any child), what moto and the API server then hold, a second preview with
// no changes (the cluster read and checked at it), the state's parentage, and `pulumi destroy`
// (everything gone, in the documented order).
func TestDefaultInstall(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stack("")

	t.Run("preview of a cluster the update creates, oidcProviderArn unknown", func(t *testing.T) {
		p := w.preview(t)
		if errs := p.errors(); len(errs) > 0 {
			t.Fatalf("preview errors: %q", errs)
		}
		// The engine says which kubernetes provider runs: the real 4.25.0, installed under the
		// 4.30.0 the component requests.
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool { return strings.Contains(d.Message, lab.KubernetesVersionWarning) }) {
			t.Errorf("the preview does not warn %q: %+v", lab.KubernetesVersionWarning, p.Diagnostics)
		}
		// The engine called Construct with the cluster's name known (auto-named, like pulumi-eks's
		// clusters) and the OIDC provider's ARN unknown: outputs of resources that do not exist yet
		// ...
		calls, err := w.Engine.GRPCCalls()
		if err != nil {
			t.Fatal(err)
		}
		cs := calls.Completed("ResourceProvider/Construct")
		if len(cs) != 1 {
			t.Fatalf("want one Construct call, got %d", len(cs))
		}
		var construct struct{ Inputs map[string]any }
		if err := cs[0].Decode(&construct); err != nil {
			t.Fatal(err)
		}
		if !unknownOutputValue(construct.Inputs["oidcProviderArn"]) {
			t.Errorf("Construct input oidcProviderArn = %v, want unknown", construct.Inputs["oidcProviderArn"])
		}
		cluster, _ := construct.Inputs["clusterName"].(map[string]any)
		if name := str(cluster["value"]); !strings.HasPrefix(name, "cluster-") || !strings.Contains(fmt.Sprint(cluster["dependencies"]), "aws:eks/cluster:Cluster::cluster") {
			t.Errorf("Construct input clusterName = %v, want the cluster's name, known, from the cluster", construct.Inputs["clusterName"])
		}
		if len(cs[0].Errors) > 0 {
			t.Errorf("Construct failed: %q", cs[0].Errors)
		}
		// ... which the component could not read yet: it says so, and what it checks at `up`.
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool {
			return d.Severity == "warning" && strings.Contains(d.Message, "does not exist yet (this update creates it): at `pulumi up`, before creating anything, the component reads the cluster and checks")
		}) {
			t.Errorf("the preview does not say the cluster checks wait for `up`: %+v", p.Diagnostics)
		}
		// ... and the component planned every child of the default install, parented to it.
		children, byName := plannedChildren(t, p)
		if got := countTypes(children); !reflect.DeepEqual(got, defaultChildren) {
			t.Errorf("planned children by type:\n got %v\nwant %v", got, defaultChildren)
		}
		// What depends on the unknown is unknown; the AWS names, derived from account, region,
		// project, stack and component name, are known (nothing waits for a name), and so is what
		// the cluster's name scopes.
		for name, k := range map[string]string{
			"karpenter-controller": "assumeRolePolicy", // trusts the OIDC provider
		} {
			if !hasUnknown(byName[name][k]) {
				t.Errorf("%s.%s should be unknown in the preview: %v", name, k, byName[name][k])
			}
		}
		for _, nk := range [][2]string{
			{"karpenter-controller", "name"},
			{"karpenter-node", "name"},
			{"karpenter-node", "assumeRolePolicy"},
			{"karpenter-controller-node-lifecycle", "name"},
			{"karpenter-controller-zonal-shift", "name"},
			{"karpenter-interruption", "name"},
			{"karpenter-spot-interruption", "eventPattern"},
			{"karpenter-nodepool-default", "spec"},
			{"karpenter-controller-node-lifecycle", "policy"}, // scoped by the cluster-name tag
			{"karpenter-node-access", "clusterName"},
			{"karpenter-nodeclass-default", "spec"}, // the discovery tag of the cluster
			{"karpenter-discovery-subnet-0", "value"},
		} {
			if v := byName[nk[0]][nk[1]]; v == nil || hasUnknown(v) {
				t.Errorf("%s.%s should be known in the preview, got %v", nk[0], nk[1], v)
			}
		}
		w.assertNothingCreated(t)
	})

	var out map[string]any
	const created = 47 // stack, 2 providers, the cluster, its role and OIDC provider, the component, 40 children
	t.Run("up creates the default install", func(t *testing.T) {
		start := time.Now()
		stdout := w.up(t)
		t.Logf("pulumi up: %s", time.Since(start).Round(100*time.Millisecond))
		if !strings.Contains(stdout, fmt.Sprintf("%d created", created)) {
			t.Errorf("pulumi up: want %d resources created (stack, 2 providers, the cluster, its role and OIDC provider, the component, 40 children):\n%s", created, stdout)
		}
		out = w.outputs(t)
		checkDefaultAWS(t, w, out)
		checkDefaultKubernetes(t, w, out)
	})
	if t.Failed() {
		return
	}

	t.Run("a second preview shows no changes", func(t *testing.T) {
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
		p := w.preview(t)
		for _, s := range p.Steps {
			if s.Op != "same" {
				t.Errorf("%s: %s (%v)", s.URN, s.Op, s.DiffReasons)
			}
		}
	})

	t.Run("every child is parented to the component", func(t *testing.T) {
		var export struct {
			Deployment struct {
				Resources []struct {
					URN, Type, Parent, Provider string
					Custom                      bool
				}
			}
		}
		if err := json.Unmarshal([]byte(w.must(t, "stack", "export")), &export); err != nil {
			t.Fatal(err)
		}
		var stack, component, awsProvider, k8sProvider string
		for _, r := range export.Deployment.Resources {
			switch {
			case r.Type == "pulumi:pulumi:Stack":
				stack = r.URN
			case r.Type == "karpenter:index:Karpenter":
				component = r.URN
			case r.Type == "pulumi:providers:aws":
				awsProvider = r.URN
			case r.Type == "pulumi:providers:kubernetes":
				k8sProvider = r.URN
			}
		}
		var children []string
		for _, r := range export.Deployment.Resources {
			switch {
			case r.URN == stack:
			case strings.HasPrefix(r.Type, "pulumi:providers:") && strings.HasSuffix(r.URN, "::default"):
				// The engine's default provider for the component's own package has no parent.
			case strings.Contains(r.URN, "karpenter:index:Karpenter$"):
				// Registered by the component: its child, using the program's explicit providers.
				if r.Parent != component {
					t.Errorf("%s: parent %q, want the component", r.URN, r.Parent)
				}
				want := awsProvider
				if strings.HasPrefix(r.Type, "kubernetes:") {
					want = k8sProvider
				}
				if !strings.HasPrefix(r.Provider, want+"::") {
					t.Errorf("%s: provider %q, want the program's %s", r.URN, r.Provider, want)
				}
				children = append(children, r.Type)
			default:
				// The program's own resources, the component included, belong to the stack.
				if r.Parent != stack {
					t.Errorf("%s: parent %q, want the stack", r.URN, r.Parent)
				}
			}
		}
		if component == "" || !reflect.DeepEqual(countTypes(children), defaultChildren) {
			t.Errorf("the component's children by type:\n got %v\nwant %v", countTypes(children), defaultChildren)
		}
	})

	t.Run("the state orders the destroy", func(t *testing.T) {
		state, err := w.StateResources()
		if err != nil {
			t.Fatal(err)
		}
		checkStateOrder(t, state)
	})

	t.Run("destroy removes everything, custom resources first, IAM and queue last", func(t *testing.T) {
		if stdout := w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview"); !strings.Contains(stdout, fmt.Sprintf("%d deleted", created)) {
			t.Errorf("pulumi destroy: want %d deleted:\n%s", created, stdout)
		}
		w.assertNothingLeft(t)
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		checkDestroyOrder(t, ops)
	})
}

// unknownOutputValue: an input the engine sent to Construct as an output value without a value
// (the gRPC log shows the output-value signature and the dependencies only).
func unknownOutputValue(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return str(v) == unknownSentinel
	}
	_, hasValue := m["value"]
	return m["4dabf18193072939515e22adb298388d"] == "d0e6a833031e9bbcd3f4e8bde6ca49a4" && !hasValue
}

// assertNothingLeft: after a destroy moto holds nothing, the API server holds what it held at
// its start once the garbage collector has removed what the deleted objects owned (ReplicaSets,
// pods, EndpointSlices: background deletion, as in any cluster), and every resource created was
// deleted but those named retained (retainOnDelete: the engine never deletes them).
func (w *world) assertNothingLeft(t *testing.T, retained ...string) {
	t.Helper()
	if l := w.aws(t).Leftovers(); len(l) > 0 {
		t.Errorf("moto still holds: %s", strings.Join(l, ", "))
	}
	if objs := w.settledKubeObjects(t); len(objs) > 0 {
		t.Errorf("the API server still holds %d objects it did not have at the start: %s", len(objs), strings.Join(objs, ", "))
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	created, deleted := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		switch {
		case op.Failed:
		case op.Op == "Create":
			created[op.Type+" "+op.Name] = true
		case op.Op == "Delete":
			deleted[op.Type+" "+op.Name] = true
		}
	}
	for k := range created {
		if !deleted[k] && !slices.Contains(retained, k[strings.LastIndex(k, " ")+1:]) {
			t.Errorf("created and never deleted: %s", k)
		}
	}
}

// checkStateOrder: the dependencies the engine recorded (`pulumi stack export`), which every
// destroy honours whatever its scheduling: each NodePool/EC2NodeClass depends, directly or not,
// on the controller release, and the release on every controller IAM resource (role, policies,
// attachments) and every interruption resource (queue, its policy, rules, targets). The engine
// (v3.259.0) deletes in waves by dependency depth, which can hide one missing edge from
// checkDestroyOrder: the release may still land in an earlier wave than what it no longer
// depends on. This check sees the edge itself.
func checkStateOrder(t *testing.T, state []lab.StateResource) {
	t.Helper()
	deps := map[string][]string{}
	byName := map[string]lab.StateResource{}
	for _, r := range state {
		var ds []string
		for _, d := range r.Dependencies {
			ds = append(ds, urnName(d))
		}
		deps[r.Name()] = ds
		byName[r.Name()] = r
	}
	reach := func(from string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{from}
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
		return seen
	}
	release := reach("karpenter-release")
	var checked int
	for _, name := range sortedKeys(byName) {
		r := byName[name]
		switch {
		case strings.HasPrefix(r.Type, "kubernetes:karpenter."):
			if !reach(name)["karpenter-release"] {
				t.Errorf("%s does not depend on karpenter-release: a destroy may delete the controller first", name)
			}
			checked++
		case strings.HasPrefix(name, "karpenter-controller"), strings.HasPrefix(name, "karpenter-interruption"),
			r.Type == "aws:cloudwatch/eventRule:EventRule", r.Type == "aws:cloudwatch/eventTarget:EventTarget":
			if !release[name] {
				t.Errorf("karpenter-release does not depend on %s: a destroy may delete it while the controller runs", name)
			}
			checked++
		}
	}
	if checked != 27 {
		t.Errorf("checked %d resources, want 27 (2 custom resources, 25 controller IAM and interruption resources)", checked)
	}
}

// checkDestroyOrder reads the engine's record of the destroy (its gRPC log: when it sent each
// Delete and when the plugin answered): each NodePool and EC2NodeClass delete had completed —
// the objects gone, their finalizers done — before the controller release's delete began, and
// that delete (the Helm uninstall, waiting until the controller's objects are gone) had completed
// before the delete of any of its IAM (role, policies, attachments) or its queue (queue, policy,
// rules, targets) began. Pulumi deletes unrelated resources in parallel, so only these
// dependencies order anything; a missing edge lets a fast IAM delete run during the slow uninstall.
func checkDestroyOrder(t *testing.T, ops []lab.Op) {
	t.Helper()
	var release *lab.Op
	var crs, controllerSide []lab.Op
	for i, op := range ops {
		if op.Op != "Delete" || op.Failed {
			continue
		}
		switch {
		case op.Name == "karpenter-release":
			release = &ops[i]
		case strings.HasPrefix(op.Type, "kubernetes:karpenter."):
			crs = append(crs, op)
		case strings.HasPrefix(op.Name, "karpenter-controller"), strings.HasPrefix(op.Name, "karpenter-interruption"),
			op.Type == "aws:cloudwatch/eventRule:EventRule", op.Type == "aws:cloudwatch/eventTarget:EventTarget":
			controllerSide = append(controllerSide, op)
		}
	}
	if release == nil {
		t.Fatalf("the engine deleted no karpenter-release; deletes: %v", ops)
	}
	if len(crs) != 2 {
		t.Errorf("want the NodePool and EC2NodeClass deleted, got %v", crs)
	}
	for _, op := range crs {
		if !op.Time.Before(release.Start) {
			t.Errorf("%s was deleted at %s, not before the controller release's delete began (%s)", op.Name, op.Time.Format("15:04:05.000000"), release.Start.Format("15:04:05.000000"))
		}
	}
	// 1 role + 6 policies + 6 attachments + queue + queue policy + 5 rules + 5 targets.
	if len(controllerSide) != 25 {
		t.Errorf("want 25 controller IAM and interruption resources deleted, got %d: %v", len(controllerSide), controllerSide)
	}
	for _, op := range controllerSide {
		if !op.Start.After(release.Time) {
			t.Errorf("%s's delete began at %s, before the controller release was gone (%s): the controller would run without its permissions or queue",
				op.Name, op.Start.Format("15:04:05.000000"), release.Time.Format("15:04:05.000000"))
		}
	}
	if t.Failed() {
		var lines []string
		for _, op := range ops {
			if op.Op == "Delete" {
				lines = append(lines, op.String())
			}
		}
		t.Logf("deletes (sent-answered), in completion order:\n%s", strings.Join(lines, "\n"))
	}
}

// checkDefaultAWS: what moto holds after `up` of the default install is what the component
// promises (README "One Karpenter resource creates").
func checkDefaultAWS(t *testing.T, w *world, out map[string]any) {
	t.Helper()
	inv := w.aws(t)
	cluster := str(out["clusterName"])
	if !slices.Contains(inv.Clusters, cluster) {
		t.Fatalf("stack output clusterName = %q, and moto's EKS holds %v", cluster, inv.Clusters)
	}
	if len(inv.OIDCProviders) != 1 {
		t.Fatalf("want the program's OIDC provider, moto holds %v", inv.OIDCProviders)
	}
	oidc := inv.OIDCProviders[0]
	issuer := oidc[strings.Index(oidc, ":oidc-provider/")+len(":oidc-provider/"):]

	// Roles: the program's cluster role, the controller's and the node's.
	if len(inv.Roles) != 3 {
		t.Errorf("want 3 roles (cluster, controller, node), moto holds %d", len(inv.Roles))
	}
	ctlArn, nodeArn := str(out["controllerRoleArn"]), str(out["nodeRoleArn"])
	ctl, node := inv.Role(ctlArn[strings.LastIndex(ctlArn, "/")+1:]), inv.Role(nodeArn[strings.LastIndex(nodeArn, "/")+1:])
	if ctl == nil || node == nil || ctl.Arn != ctlArn || node.Arn != nodeArn {
		t.Fatalf("the controller role %s and node role %s (stack outputs) are not both in moto: %+v", ctlArn, nodeArn, inv.Roles)
	}
	var trust struct {
		Statement []struct {
			Action    string
			Principal map[string]string
			Condition map[string]map[string]string
		}
	}
	if err := json.Unmarshal([]byte(ctl.AssumeRolePolicy), &trust); err != nil || len(trust.Statement) != 1 {
		t.Fatalf("controller trust policy: %v\n%s", err, ctl.AssumeRolePolicy)
	}
	st := trust.Statement[0]
	if st.Action != "sts:AssumeRoleWithWebIdentity" || st.Principal["Federated"] != oidc ||
		st.Condition["StringEquals"][issuer+":sub"] != "system:serviceaccount:kube-system:karpenter" ||
		st.Condition["StringEquals"][issuer+":aud"] != "sts.amazonaws.com" {
		t.Errorf("controller trust: want IRSA through %s for kube-system:karpenter, got %s", oidc, ctl.AssumeRolePolicy)
	}
	if !strings.Contains(node.AssumeRolePolicy, `"ec2.amazonaws.com"`) {
		t.Errorf("node trust: want ec2.amazonaws.com, got %s", node.AssumeRolePolicy)
	}

	// The six controller policies, exactly, attached to the controller role.
	wantPolicies := strs(out["controllerPolicyArns"])
	sort.Strings(wantPolicies)
	if len(wantPolicies) != 6 {
		t.Errorf("stack output controllerPolicyArns: want 6, got %v", wantPolicies)
	}
	if !reflect.DeepEqual(ctl.AttachedPolicyArns, wantPolicies) {
		t.Errorf("controller role's policies:\n got %v\nwant %v", ctl.AttachedPolicyArns, wantPolicies)
	}
	var local []string
	for _, p := range inv.Policies {
		local = append(local, p.Arn)
	}
	if !reflect.DeepEqual(local, wantPolicies) {
		t.Errorf("customer-managed policies in moto:\n got %v\nwant %v", local, wantPolicies)
	}
	suffixes := []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"}
	for _, s := range suffixes {
		found := false
		for _, p := range inv.Policies {
			if strings.HasPrefix(p.Name, "karpenter-controller-"+s+"-") {
				found = true
				if p.AttachmentCount != 1 {
					t.Errorf("%s: attached %d times, want once", p.Name, p.AttachmentCount)
				}
			}
		}
		if !found {
			t.Errorf("no karpenter-controller-%s policy in moto", s)
		}
	}
	queueName, queueArn := str(out["interruptionQueueName"]), str(out["interruptionQueueArn"])
	for _, p := range inv.Policies {
		switch {
		case strings.Contains(p.Name, "node-lifecycle"):
			// Scoped to this cluster by tag; 1.15's ec2:RebootInstances.
			if !strings.Contains(p.Document, "aws:ResourceTag/kubernetes.io/cluster/"+cluster) || !strings.Contains(p.Document, "ec2:RebootInstances") {
				t.Errorf("%s: want the cluster-name tag condition for %s and ec2:RebootInstances:\n%s", p.Name, cluster, p.Document)
			}
		case strings.Contains(p.Name, "interruption"):
			if !strings.Contains(p.Document, queueArn) {
				t.Errorf("%s: want the queue %s:\n%s", p.Name, queueArn, p.Document)
			}
		}
	}

	// The node role: the four AWS managed policies, an instance profile, an access entry.
	wantNode := []string{
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
		"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
		"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
		"arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
	}
	if !reflect.DeepEqual(node.AttachedPolicyArns, wantNode) {
		t.Errorf("node role's policies:\n got %v\nwant %v", node.AttachedPolicyArns, wantNode)
	}
	if len(inv.InstanceProfiles) != 1 || inv.InstanceProfiles[0].Name != str(out["instanceProfileName"]) ||
		!reflect.DeepEqual(inv.InstanceProfiles[0].Roles, []string{node.Name}) {
		t.Errorf("instance profiles: want %s holding %s, got %+v", out["instanceProfileName"], node.Name, inv.InstanceProfiles)
	}
	if want := []string{cluster + ":" + node.Arn}; !reflect.DeepEqual(inv.AccessEntries, want) {
		t.Errorf("EKS access entries (stand-in record): want %v, got %v", want, inv.AccessEntries)
	}

	// The queue (SSE, 300 s retention) and its policy; five rules, each targeting the queue.
	if len(inv.Queues) != 1 || inv.Queues[0].Name != queueName {
		t.Fatalf("want the queue %s, moto holds %+v", queueName, inv.Queues)
	}
	q := inv.Queues[0].Attributes
	if q["MessageRetentionPeriod"] != "300" || q["SqsManagedSseEnabled"] != "true" || q["QueueArn"] != queueArn {
		t.Errorf("queue attributes: %v", q)
	}
	var qp struct {
		Statement []struct {
			Effect    string
			Principal any
			Action    any
			Resource  string
		}
	}
	if err := json.Unmarshal([]byte(q["Policy"]), &qp); err != nil {
		t.Fatalf("queue policy: %v\n%s", err, q["Policy"])
	}
	var allowed, denied []string
	for _, s := range qp.Statement {
		b, _ := json.Marshal([]any{s.Principal, s.Action})
		switch {
		case s.Resource != queueArn:
		case s.Effect == "Allow":
			allowed = append(allowed, string(b))
		case s.Effect == "Deny":
			denied = append(denied, string(b))
		}
	}
	// EventBridge (and SQS) may send to the queue; plain HTTP is denied.
	if !reflect.DeepEqual(allowed, []string{`[{"Service":["events.amazonaws.com","sqs.amazonaws.com"]},"sqs:SendMessage"]`}) ||
		!reflect.DeepEqual(denied, []string{`["*","sqs:*"]`}) {
		t.Errorf("queue policy: allowed %s, denied %s:\n%s", allowed, denied, q["Policy"])
	}
	if len(inv.Rules) != 5 {
		t.Errorf("want 5 EventBridge rules, moto holds %d", len(inv.Rules))
	}
	var sources []string
	for _, r := range inv.Rules {
		if len(r.Targets) != 1 || r.Targets[0].Arn != queueArn || r.Targets[0].ID != "KarpenterInterruptionQueueTarget" {
			t.Errorf("rule %s: targets %+v, want the queue %s", r.Name, r.Targets, queueArn)
		}
		var pattern struct {
			Source     []string `json:"source"`
			DetailType []string `json:"detail-type"`
		}
		if err := json.Unmarshal([]byte(r.EventPattern), &pattern); err != nil {
			t.Errorf("rule %s: pattern %q: %v", r.Name, r.EventPattern, err)
		}
		sources = append(sources, strings.Join(pattern.Source, ",")+" "+strings.Join(pattern.DetailType, ","))
	}
	sort.Strings(sources)
	wantSources := []string{
		"aws.ec2 EC2 Capacity Reservation Instance Interruption Warning",
		"aws.ec2 EC2 Instance Rebalance Recommendation",
		"aws.ec2 EC2 Instance State-change Notification",
		"aws.ec2 EC2 Spot Instance Interruption Warning",
		"aws.health AWS Health Event",
	}
	if !reflect.DeepEqual(sources, wantSources) {
		t.Errorf("rule patterns:\n got %q\nwant %q", sources, wantSources)
	}
}

// checkControllerRunning: `up` returned only once the controller was available — its two
// replicas scheduled by kube-scheduler onto system nodes in two zones (the chart's zone spread
// and hostname anti-affinity), Running and Ready (kwok), Ready no later than the engine's Create
// of the release completed (the provider's Helm waited for them; Ready times have second
// precision).
func checkControllerRunning(t *testing.T, w *world) {
	t.Helper()
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	var created time.Time
	for _, op := range ops {
		if op.Name == "karpenter-release" && (op.Op == "Create" || op.Op == "Update") && !op.Failed {
			created = op.Time
		}
	}
	pods := w.controllerPods(t)
	zones := map[string]bool{}
	for _, p := range pods {
		var ready *metav1.Time
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = &c.LastTransitionTime
			}
		}
		switch {
		case !strings.HasPrefix(p.Spec.NodeName, "system-"):
			t.Errorf("controller pod %s is on node %q, want a system node", p.Name, p.Spec.NodeName)
		case ready == nil:
			t.Errorf("controller pod %s is not Ready: %v", p.Name, p.Status.Conditions)
		case ready.Time.After(created.Add(time.Second)):
			t.Errorf("controller pod %s became Ready at %s, after the release's Create completed (%s): the provider did not wait",
				p.Name, ready.Format(time.RFC3339), created.Format(time.RFC3339Nano))
		}
		zones[strings.TrimPrefix(p.Spec.NodeName, "system-")] = true
	}
	if len(pods) != 2 || len(zones) != 2 {
		t.Errorf("want the controller's 2 replicas in 2 zones, got %d pods in %v", len(pods), zones)
	}
}

// checkDefaultKubernetes: both releases deployed from the 1.15.1 charts, the controller wired to
// the cluster, queue and role, the default NodePool and EC2NodeClass stored.
func checkDefaultKubernetes(t *testing.T, w *world, out map[string]any) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{"karpenter-crd", "karpenter"} {
		if got := w.release(t, name); got != (releaseInfo{Status: "deployed", Revision: 1, Chart: "1.15.1"}) {
			t.Errorf("helm status %s: %+v, want deployed revision 1 of chart 1.15.1", name, got)
		}
		// The chart Helm installed is the one pushed to the world's registry (its annotation
		// names the module zip it was packaged from), pulled through chartRepository.
		rel, err := w.Cluster.ReleaseStatus("kube-system", name)
		if err != nil {
			t.Fatal(err)
		}
		if src := rel.Chart.Metadata.Annotations[harness.SourceAnnotation]; src != harness.KarpenterModule+"@v1.15.1/charts/"+name {
			t.Errorf("release %s: chart from %q, want the registry's copy of %s@v1.15.1/charts/%s", name, src, harness.KarpenterModule, name)
		}
	}
	checkControllerRunning(t, w)
	dep, err := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
		Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the controller deployment: %v", err)
	}
	env := map[string]string{}
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		vars, _, _ := unstructured.NestedSlice(c.(map[string]any), "env")
		for _, v := range vars {
			m := v.(map[string]any)
			env[str(m["name"])] = str(m["value"])
		}
	}
	if env["CLUSTER_NAME"] != str(out["clusterName"]) || env["INTERRUPTION_QUEUE"] != str(out["interruptionQueueName"]) {
		t.Errorf("controller env CLUSTER_NAME=%q INTERRUPTION_QUEUE=%q, want %q and %q", env["CLUSTER_NAME"], env["INTERRUPTION_QUEUE"],
			out["clusterName"], out["interruptionQueueName"])
	}
	// The endpoint the component read from the cluster (here the world's API server, which the
	// stand-in's EKS gives the cluster it made).
	if env["CLUSTER_ENDPOINT"] != w.ControlPlane.URL {
		t.Errorf("controller env CLUSTER_ENDPOINT=%q, want the cluster's endpoint %s", env["CLUSTER_ENDPOINT"], w.ControlPlane.URL)
	}
	sa, err := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).
		Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sa.GetAnnotations()["eks.amazonaws.com/role-arn"]; got != str(out["controllerRoleArn"]) {
		t.Errorf("service account role-arn %q, want %q", got, out["controllerRoleArn"])
	}
	nodeRole := str(out["nodeRoleArn"])
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
		{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	} {
		obj, err := w.Cluster.Dynamic.Resource(gvr).Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s default: %v", gvr.Resource, err)
			continue
		}
		if gvr.Resource == "ec2nodeclasses" {
			role, _, _ := unstructured.NestedString(obj.Object, "spec", "role")
			terms, _, _ := unstructured.NestedSlice(obj.Object, "spec", "subnetSelectorTerms")
			if role != nodeRole[strings.LastIndex(nodeRole, "/")+1:] {
				t.Errorf("EC2NodeClass default: role %q, want the node role", role)
			}
			b, _ := json.Marshal(terms)
			if !strings.Contains(string(b), `"karpenter.sh/discovery":"`+str(out["clusterName"])+`"`) {
				t.Errorf("EC2NodeClass default: subnets selected by %s, want the discovery tag of the cluster", b)
			}
		}
	}
}
