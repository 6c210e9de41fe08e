package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// EKS Auto Mode on the API server: the NodeClass and NodePool CRDs as EKS serves them (the harness's
// stand-in, harness.InstallAutoModeCRDs: the 2024-12 schemas — the published NodeClass, upstream
// Karpenter v1.2.1's NodePool with EKS's changes — plus the fields the EKS User Guide documents
// later, tests/testdata/automode) accept what Auto Mode accepts and reject, with Auto Mode's
// messages, what it rejects.

// autoModeNodeClassLeaves are the spec fields of the NodeClass the harness serves: the 2024-12
// schema's, then the documented newer ones (the overlay). The provider's typed Auto Mode NodeClass
// must reach each one (harness.AutoModeNodeClassSpec gives them to such a check).
var autoModeNodeClassLeaves = []string{
	// 2024-12 published schema
	"spec.ephemeralStorage.iops",
	"spec.ephemeralStorage.size",
	"spec.ephemeralStorage.throughput",
	"spec.networkPolicy",
	"spec.networkPolicyEventLogs",
	"spec.role",
	"spec.securityGroupSelectorTerms[].id",
	"spec.securityGroupSelectorTerms[].name",
	"spec.securityGroupSelectorTerms[].tags",
	"spec.snatPolicy",
	"spec.subnetSelectorTerms[].id",
	"spec.subnetSelectorTerms[].tags",
	"spec.tags",
	// EKS User Guide (overlay)
	"spec.advancedNetworking.associatePublicIPAddress",
	"spec.advancedNetworking.enableV4Egress",
	"spec.advancedNetworking.httpsProxy",
	"spec.advancedNetworking.ipv4PrefixSize",
	"spec.advancedNetworking.networkInterfaces[].deviceIndex",
	"spec.advancedNetworking.networkInterfaces[].interfaceType",
	"spec.advancedNetworking.networkInterfaces[].networkCardIndex",
	"spec.advancedNetworking.networkInterfaces[].secondaryIPv4Count",
	"spec.advancedNetworking.networkInterfaces[].secondaryIPv4PrefixCount",
	"spec.advancedNetworking.noProxy",
	"spec.advancedSecurity.fips",
	"spec.advancedSecurity.kernelLockdown",
	"spec.capacityReservationSelectorTerms[].id",
	"spec.capacityReservationSelectorTerms[].owner",
	"spec.capacityReservationSelectorTerms[].tags",
	"spec.certificateBundles[].data",
	"spec.certificateBundles[].name",
	"spec.ephemeralStorage.kmsKeyID",
	"spec.instanceProfile",
	"spec.placementGroupSelector.id",
	"spec.placementGroupSelector.name",
	"spec.podSecurityGroupSelectorTerms[].id",
	"spec.podSecurityGroupSelectorTerms[].tags",
	"spec.podSubnetSelectorTerms[].id",
	"spec.podSubnetSelectorTerms[].tags",
}

// Two NodeClasses that together set every field of the served spec (role and instanceProfile, and
// a placement group's name and id, exclude each other).
const everyFieldNodeClassWithRole = `{
  "role": "auto-node-role",
  "subnetSelectorTerms": [{"id": "subnet-0a1b2c3d"}, {"tags": {"karpenter.sh/discovery": "demo"}}],
  "securityGroupSelectorTerms": [{"id": "sg-0a1b2c3d"}, {"name": "eks-cluster-sg-demo"}, {"tags": {"karpenter.sh/discovery": "demo"}}],
  "podSubnetSelectorTerms": [{"id": "subnet-0f0e0d0c"}, {"tags": {"kubernetes.io/role/cni": "1"}}],
  "podSecurityGroupSelectorTerms": [{"id": "sg-0f0e0d0c"}, {"tags": {"pods": "true"}}],
  "capacityReservationSelectorTerms": [{"id": "cr-0a1b2c3d4e5f"}, {"tags": {"purpose": "training"}, "owner": "123456789012"}],
  "placementGroupSelector": {"name": "training-cluster"},
  "ephemeralStorage": {"size": "200Gi", "iops": 6000, "throughput": 250, "kmsKeyID": "arn:aws:kms:us-west-2:123456789012:key/0a1b2c3d-0000-1111-2222-333344445555"},
  "networkPolicy": "DefaultDeny",
  "networkPolicyEventLogs": "Enabled",
  "snatPolicy": "Disabled",
  "tags": {"team": "ml"},
  "advancedNetworking": {
    "httpsProxy": "http://proxy.internal:3128",
    "noProxy": ["localhost", "127.0.0.1", "169.254.169.254", ".internal", ".eks.amazonaws.com"],
    "associatePublicIPAddress": false,
    "ipv4PrefixSize": "32",
    "enableV4Egress": false,
    "networkInterfaces": [
      {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface", "secondaryIPv4PrefixCount": 2},
      {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "interface", "secondaryIPv4Count": 4},
      {"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"}
    ]
  },
  "certificateBundles": [{"name": "corp-ca", "data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}],
  "advancedSecurity": {"fips": true, "kernelLockdown": "integrity"}
}`

const everyFieldNodeClassWithInstanceProfile = `{
  "instanceProfile": "auto-node-profile",
  "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
  "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
  "placementGroupSelector": {"id": "pg-0a1b2c3d4e5f"},
  "advancedNetworking": {"associatePublicIPAddress": true, "ipv4PrefixSize": "Auto", "enableV4Egress": true},
  "advancedSecurity": {"fips": false, "kernelLockdown": "none"}
}`

// A minimal valid NodeClass and NodePool spec; the cases below vary them.
const (
	baseNodeClass = `{
  "role": "auto-node-role",
  "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
  "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}]
}`
	baseNodePool = `{
  "template": {"spec": {
    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "general"},
    "requirements": [{"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]}]
  }}
}`
)

// TestAutoModeCRDs: the CRDs install (structural, every CEL rule compiles within its cost budget)
// with the envelope EKS serves; the served NodeClass spec has exactly the fields listed above and
// those of harness.AutoModeNodeClassSpec; NodeClasses that set every field, and NodePools using
// what Auto Mode added (replicas, Balanced, NodeNotHealthy, its eks.amazonaws.com labels, the
// longest lifetime it allows) are accepted and read back equal.
func TestAutoModeCRDs(t *testing.T) {
	t.Parallel()
	c, ctx := autoModeCluster(t)

	for name, want := range map[string]struct {
		group, kind, plural, singular string
		subresources                  map[string]any
	}{
		harness.AutoModeNodeClassCRD: {"eks.amazonaws.com", "NodeClass", "nodeclasses", "nodeclass",
			map[string]any{"status": map[string]any{}}},
		harness.AutoModeNodePoolCRD: {"karpenter.sh", "NodePool", "nodepools", "nodepool",
			map[string]any{"status": map[string]any{}, "scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.nodes"}}},
	} {
		crd, err := c.CRD(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(field(crd, "spec", "group"), " ", field(crd, "spec", "names", "kind"), " ", field(crd, "spec", "names", "plural"), " ",
			field(crd, "spec", "names", "singular"), " ", field(crd, "spec", "scope"))
		if w := fmt.Sprint(want.group, " ", want.kind, " ", want.plural, " ", want.singular, " Cluster"); got != w {
			t.Errorf("CRD %s: %s, want %s", name, got, w)
		}
		versions, _ := field(crd, "spec", "versions").([]any)
		if len(versions) != 1 || harness.Lookup(versions[0], "name") != "v1" || harness.Lookup(versions[0], "storage") != true {
			t.Fatalf("CRD %s versions %v, want v1 only", name, versions)
		}
		if sub := harness.Lookup(versions[0], "subresources"); !reflect.DeepEqual(sub, want.subresources) {
			t.Errorf("CRD %s subresources %v, want %v", name, sub, want.subresources)
		}
	}

	// The served NodeClass spec: what the API server returns, what the harness loads, and the list.
	crd, err := c.CRD(ctx, harness.AutoModeNodeClassCRD)
	if err != nil {
		t.Fatal(err)
	}
	served, err := harness.SpecNode(harness.Lookup(field(crd, "spec", "versions").([]any)[0], "schema.openAPIV3Schema").(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := harness.AutoModeNodeClassSpec()
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(autoModeNodeClassLeaves))
	for what, node := range map[string]*harness.SchemaNode{"served NodeClass": served, "harness.AutoModeNodeClassSpec()": loaded} {
		got := node.Leaves("spec")
		for _, leaf := range want {
			if !slices.Contains(got, leaf) {
				t.Errorf("%s spec lacks %s (autoModeNodeClassLeaves has it)", what, leaf)
			}
		}
		for _, leaf := range got {
			if !slices.Contains(want, leaf) {
				t.Errorf("%s spec has %s, which autoModeNodeClassLeaves does not list", what, leaf)
			}
		}
	}

	// Every field, over two NodeClasses.
	classes := map[string]map[string]any{
		"every-field-role":    decode(t, everyFieldNodeClassWithRole),
		"every-field-profile": decode(t, everyFieldNodeClassWithInstanceProfile),
	}
	set := map[string]bool{}
	for _, spec := range classes {
		for _, p := range served.SetLeaves("spec", spec) {
			set[p] = true
		}
	}
	for _, leaf := range want {
		if !set[leaf] {
			t.Errorf("no NodeClass of this test sets %s", leaf)
		}
	}
	for p := range set {
		if !slices.Contains(want, p) {
			t.Errorf("a NodeClass of this test sets %s, which the served schema does not have", p)
		}
	}
	for name, spec := range classes {
		createAndReadBack(t, ctx, c, autoModeObject("NodeClass", name, spec))
	}

	// NodePools: static (replicas, only limits.nodes, no weight), and dynamic with Balanced,
	// NodeNotHealthy, supported eks.amazonaws.com keys and expireAfter + terminationGracePeriod at
	// exactly 504h.
	static := harness.MergePatch(decode(t, baseNodePool), decode(t, `{"replicas": 3, "limits": {"nodes": 5}}`))
	createAndReadBack(t, ctx, c, autoModeObject("NodePool", "static", static))
	scale, err := c.Dynamic.Resource(nodePoolsGVR).Get(ctx, "static", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("scale subresource: %v", err)
	}
	if got := field(scale, "spec", "replicas"); got != int64(3) {
		t.Errorf("NodePool static scale spec.replicas %v, want 3", got)
	}
	dynamic := harness.MergePatch(decode(t, baseNodePool), decode(t, `{
	  "weight": 10,
	  "limits": {"cpu": "1000", "memory": "1000Gi"},
	  "disruption": {"consolidationPolicy": "Balanced", "consolidateAfter": "5m",
	                 "budgets": [{"nodes": "10%", "reasons": ["NodeNotHealthy", "Drifted"]}, {"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}]},
	  "template": {
	    "metadata": {"labels": {"team": "ml", "eks.amazonaws.com/instance-family": "g5"}},
	    "spec": {
	      "expireAfter": "480h", "terminationGracePeriod": "24h",
	      "requirements": [
	        {"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g5", "g6"]},
	        {"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Gt", "values": ["0"]},
	        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
	        {"key": "eks.amazonaws.com/compute-type", "operator": "In", "values": ["auto"]}
	      ],
	      "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
	    }
	  }
	}`))
	createAndReadBack(t, ctx, c, autoModeObject("NodePool", "dynamic", dynamic))
	// The lifetime rules are Auto Mode's: a pool of self-managed Karpenter in the shared CRD keeps
	// upstream's Never.
	selfManaged := harness.MergePatch(decode(t, baseNodePool), decode(t, `{"template": {"spec": {
	  "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}, "expireAfter": "Never"}}}`))
	createAndReadBack(t, ctx, c, autoModeObject("NodePool", "self-managed", selfManaged))
}

// TestAutoModeRejects: what Auto Mode rejects is rejected by the API server (422), naming the rule.
// The messages of the 2024-12 rules are EKS's own (the NodePool's transcribed into nodepool-eks.json);
// the rest are the extensions overlays'.
func TestAutoModeRejects(t *testing.T) {
	t.Parallel()
	c, ctx := autoModeCluster(t)
	// The bases are valid, so each rejection below is the variation's.
	createAndReadBack(t, ctx, c, autoModeObject("NodeClass", "base", decode(t, baseNodeClass)))
	createAndReadBack(t, ctx, c, autoModeObject("NodePool", "base", decode(t, baseNodePool)))

	long := strings.Repeat("a", 250) + ".test:3128"
	noProxy := `"a"` + strings.Repeat(`, "a"`, 50)
	cases := []struct {
		name, kind, patch string
		want              []string
	}{
		// NodePool: Auto Mode's lifetime rules, for eks.amazonaws.com NodeClass references.
		{"expireAfter Never", "NodePool", `{"template": {"spec": {"expireAfter": "Never"}}}`,
			[]string{"expireAfter may not be set to Never"}},
		{"expireAfter + terminationGracePeriod > 504h", "NodePool", `{"template": {"spec": {"expireAfter": "481h", "terminationGracePeriod": "24h"}}}`,
			[]string{"the sum of expireAfter and terminationGracePeriod may not exceed 21 days"}},
		{"expireAfter 504h + the default terminationGracePeriod", "NodePool", `{"template": {"spec": {"expireAfter": "504h"}}}`,
			[]string{"the sum of expireAfter and terminationGracePeriod may not exceed 21 days"}},
		// Auto Mode's label rules.
		{"requirement in a subdomain of eks.amazonaws.com", "NodePool",
			`{"template": {"spec": {"requirements": [{"key": "ai.eks.amazonaws.com/foo", "operator": "Exists"}]}}}`,
			[]string{`label domain "eks.amazonaws.com" is restricted`}},
		{"unsupported eks.amazonaws.com requirement", "NodePool",
			`{"template": {"spec": {"requirements": [{"key": "eks.amazonaws.com/foo", "operator": "Exists"}]}}}`,
			[]string{`label domain "eks.amazonaws.com" is restricted`}},
		{"label in a subdomain of eks.amazonaws.com", "NodePool", `{"template": {"metadata": {"labels": {"ai.eks.amazonaws.com/foo": "x"}}}}`,
			[]string{`label domain "eks.amazonaws.com" is restricted`}},
		// What Auto Mode added later (overlay).
		{"static pool with weight", "NodePool", `{"replicas": 2, "weight": 10}`, []string{"'weight' is not supported on static NodePools"}},
		{"static pool with a cpu limit", "NodePool", `{"replicas": 2, "limits": {"cpu": "10"}}`, []string{"only 'limits.nodes' is supported on static NodePools"}},
		{"negative replicas", "NodePool", `{"replicas": -1}`, []string{"spec.replicas", "greater than or equal to 0"}},
		{"unknown consolidation policy", "NodePool", `{"disruption": {"consolidationPolicy": "Sometimes", "consolidateAfter": "0s"}}`,
			[]string{"spec.disruption.consolidationPolicy", `supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"`}},
		{"budget reason of upstream 1.15", "NodePool", `{"disruption": {"consolidateAfter": "0s", "budgets": [{"nodes": "1", "reasons": ["Unhealthy"]}]}}`,
			[]string{"spec.disruption.budgets[0].reasons[0]", `"NodeNotHealthy"`}},

		// NodeClass: the 2024-12 rules.
		{"empty role", "NodeClass", `{"role": ""}`, []string{"role cannot be empty"}},
		{"reserved tag", "NodeClass", `{"tags": {"eks.amazonaws.com/nodeclass": "x"}}`,
			[]string{"tag contains a restricted tag matching eks.amazonaws.com/nodeclass"}},
		{"ephemeral storage too large", "NodeClass", `{"ephemeralStorage": {"size": "60000Gi"}}`, []string{"spec.ephemeralStorage.size"}},
		// The documented fields (overlay).
		{"role and instanceProfile", "NodeClass", `{"instanceProfile": "auto-node-profile"}`,
			[]string{"must specify exactly one of ['role', 'instanceProfile']"}},
		{"neither role nor instanceProfile", "NodeClass", `{"role": null}`,
			[]string{"must specify exactly one of ['role', 'instanceProfile']"}},
		{"pod subnets without pod security groups", "NodeClass", `{"podSubnetSelectorTerms": [{"id": "subnet-0a1b"}]}`,
			[]string{"podSubnetSelectorTerms and podSecurityGroupSelectorTerms must be set together"}},
		{"pod security groups without pod subnets", "NodeClass", `{"podSecurityGroupSelectorTerms": [{"id": "sg-0a1b"}]}`,
			[]string{"podSubnetSelectorTerms and podSecurityGroupSelectorTerms must be set together"}},
		{"capacity reservation id with owner", "NodeClass", `{"capacityReservationSelectorTerms": [{"id": "cr-0a1b", "owner": "123456789012"}]}`,
			[]string{"'id' is mutually exclusive, cannot be set along with tags or owner"}},
		{"capacity reservation owner alone", "NodeClass", `{"capacityReservationSelectorTerms": [{"owner": "123456789012"}]}`,
			[]string{"expected at least one, got none, ['tags', 'id']"}},
		{"no capacity reservation term", "NodeClass", `{"capacityReservationSelectorTerms": []}`,
			[]string{"capacityReservationSelectorTerms cannot be empty"}},
		{"capacity reservation owner not an account", "NodeClass", `{"capacityReservationSelectorTerms": [{"tags": {"a": "b"}, "owner": "12345"}]}`,
			[]string{"spec.capacityReservationSelectorTerms[0].owner"}},
		{"placement group name and id", "NodeClass", `{"placementGroupSelector": {"name": "pg", "id": "pg-0a1b"}}`,
			[]string{"'name' and 'id' are mutually exclusive"}},
		{"empty placement group selector", "NodeClass", `{"placementGroupSelector": {}}`,
			[]string{"expected at least one, got none, ['name', 'id']"}},
		{"both secondary IP counts", "NodeClass",
			`{"advancedNetworking": {"networkInterfaces": [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface", "secondaryIPv4Count": 1, "secondaryIPv4PrefixCount": 1}]}}`,
			[]string{"secondaryIPv4Count and secondaryIPv4PrefixCount are mutually exclusive"}},
		{"network interface without a type", "NodeClass", `{"advancedNetworking": {"networkInterfaces": [{"networkCardIndex": 0, "deviceIndex": 0}]}}`,
			[]string{"spec.advancedNetworking.networkInterfaces[0].interfaceType: Required value"}},
		{"ipv4PrefixSize 28", "NodeClass", `{"advancedNetworking": {"ipv4PrefixSize": "28"}}`,
			[]string{"spec.advancedNetworking.ipv4PrefixSize", `supported values: "Auto", "32"`}},
		{"proxy URL too long", "NodeClass", `{"advancedNetworking": {"httpsProxy": "` + long + `"}}`,
			[]string{"spec.advancedNetworking.httpsProxy", "255"}},
		{"51 noProxy entries", "NodeClass", `{"advancedNetworking": {"noProxy": [` + noProxy + `]}}`,
			[]string{"spec.advancedNetworking.noProxy", "50"}},
		{"certificate bundle without data", "NodeClass", `{"certificateBundles": [{"name": "ca"}]}`,
			[]string{"spec.certificateBundles[0].data: Required value"}},
		{"kernelLockdown in the wrong case", "NodeClass", `{"advancedSecurity": {"kernelLockdown": "Integrity"}}`,
			[]string{"spec.advancedSecurity.kernelLockdown", `supported values: "integrity", "none"`}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := baseNodeClass
			if tc.kind == "NodePool" {
				base = baseNodePool
			}
			obj := autoModeObject(tc.kind, fmt.Sprintf("case-%d", i), harness.MergePatch(decode(t, base), decode(t, tc.patch)))
			_, err := c.Create(ctx, obj)
			expectInvalid(t, err, tc.want...)
		})
	}

	// EC2NodeClass fields do not exist on an Auto Mode NodeClass (strict field validation, as
	// kubectl does).
	t.Run("EC2NodeClass field", func(t *testing.T) {
		obj := autoModeObject("NodeClass", "ec2nodeclass-field", harness.MergePatch(decode(t, baseNodeClass), decode(t, `{"amiFamily": "AL2023"}`)))
		_, err := c.Dynamic.Resource(autoModeNodeClassGVR).Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"})
		if err == nil || !strings.Contains(err.Error(), `unknown field "spec.amiFamily"`) {
			t.Errorf("NodeClass with amiFamily: error %v, want unknown field \"spec.amiFamily\"", err)
		}
	})

	// Updates: role is immutable; a static pool stays static.
	t.Run("role update", func(t *testing.T) {
		obj := autoModeObject("NodeClass", "base", harness.MergePatch(decode(t, baseNodeClass), decode(t, `{"role": "another-role"}`)))
		_, err := c.Update(ctx, obj)
		expectInvalid(t, err, "spec.role", "immutable field changed")
	})
	t.Run("static to dynamic", func(t *testing.T) {
		createAndReadBack(t, ctx, c, autoModeObject("NodePool", "static", harness.MergePatch(decode(t, baseNodePool), decode(t, `{"replicas": 1}`))))
		_, err := c.Update(ctx, autoModeObject("NodePool", "static", decode(t, baseNodePool)))
		expectInvalid(t, err, "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes")
	})
}

// expectInvalid fails unless err is the API server's 422 and its message has every want.
func expectInvalid(t *testing.T, err error, want ...string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("error %v, want 422 Invalid with %q", err, want)
	}
	t.Logf("API server: %v", err)
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\ndoes not say %q", err, w)
		}
	}
}

// autoModeObject is a NodeClass (eks.amazonaws.com/v1) or NodePool (karpenter.sh/v1).
func autoModeObject(kind, name string, spec map[string]any) *unstructured.Unstructured {
	apiVersion := "eks.amazonaws.com/v1"
	if kind == "NodePool" {
		apiVersion = "karpenter.sh/v1"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// createAndReadBack creates an object and fails unless the server stored everything sent.
func createAndReadBack(t *testing.T, ctx context.Context, c *harness.Cluster, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got, err := c.Create(ctx, obj.DeepCopy())
	if err != nil {
		t.Fatalf("create %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	if diffs := harness.Missing(obj.Object, got.Object); len(diffs) > 0 {
		t.Errorf("%s %s read back differs from what was sent:\n  %s", obj.GetKind(), obj.GetName(), strings.Join(diffs, "\n  "))
	}
	return got
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return m
}
