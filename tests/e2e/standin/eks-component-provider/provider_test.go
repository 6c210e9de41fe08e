//go:build e2e

package main

// The stand-in's own checks, without an engine (tests/e2e/snippets_test.go runs its Construct
// through the real engine, from the README's programs):
//
//	cd tests && GOWORK=off go test -tags e2e ./e2e/standin/eks-component-provider/

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"sigs.k8s.io/yaml"
)

func TestParseArgs(t *testing.T) {
	unknown := resource.MakeComputed(resource.NewStringProperty(""))
	str := resource.NewStringProperty
	obj := func(m map[string]any) resource.PropertyValue {
		return resource.NewObjectProperty(resource.NewPropertyMapFromMap(m))
	}
	api := str("API")
	admin := map[string]any{"principalArn": "arn:aws:iam::123456789012:role/admin", "accessPolicies": map[string]any{
		"admin": map[string]any{"policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy", "accessScope": map[string]any{"type": "cluster"}},
		"view": map[string]any{"policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
			"accessScope": map[string]any{"type": "namespace", "namespaces": []any{"default"}}},
	}}
	roleMappings := resource.NewArrayProperty([]resource.PropertyValue{obj(map[string]any{
		"roleArn": "arn:aws:iam::123456789012:role/admin", "username": "admin", "groups": []any{"system:masters"}})})
	for _, tc := range []struct {
		name string
		in   resource.PropertyMap
		want clusterArgs
		err  string
	}{
		{"the README's inputs", resource.PropertyMap{"createOidcProvider": resource.NewBoolProperty(true)},
			clusterArgs{createOIDCProvider: true}, ""},
		{"an output value, known", resource.PropertyMap{"createOidcProvider": resource.NewOutputProperty(resource.Output{
			Element: resource.NewBoolProperty(true), Known: true})}, clusterArgs{createOIDCProvider: true}, ""},
		{"API mode, name and version (passed on as they are)", resource.PropertyMap{"authenticationMode": resource.NewStringProperty("API"),
			"name": unknown, "version": resource.NewStringProperty("1.33")}, clusterArgs{authenticationMode: "API"}, ""},
		{"nulls are unset", resource.PropertyMap{"vpcId": resource.NewNullProperty(), "accessEntries": resource.NewNullProperty()}, clusterArgs{}, ""},
		{"the Registry page's network and default node group", resource.PropertyMap{"vpcId": unknown, "publicSubnetIds": unknown, "privateSubnetIds": unknown,
			"instanceType": str("t3.medium"), "desiredCapacity": resource.NewNumberProperty(2), "minSize": resource.NewNumberProperty(2), "maxSize": resource.NewNumberProperty(2)},
			clusterArgs{defaultNodeGroup: []string{"desiredCapacity", "instanceType", "maxSize", "minSize"}}, ""},
		{"pulumi-eks's refusal of subnetIds with privateSubnetIds", resource.PropertyMap{"subnetIds": unknown, "privateSubnetIds": resource.NewArrayProperty(nil)}, clusterArgs{},
			"subnetIds, and the use of publicSubnetIds and/or privateSubnetIds are mutually exclusive. Choose a single approach."},
		{"a node group size that is not a number", resource.PropertyMap{"minSize": str("2")}, clusterArgs{}, `"minSize" must be an integer`},
		{"tags, known or not, and roleMappings", resource.PropertyMap{"nodeSecurityGroupTags": obj(map[string]any{"karpenter.sh/discovery": "demo"}),
			"clusterSecurityGroupTags": unknown, "roleMappings": roleMappings}, clusterArgs{}, ""},
		{"roleMappings as an output, in API_AND_CONFIG_MAP", resource.PropertyMap{"authenticationMode": str("API_AND_CONFIG_MAP"),
			"roleMappings": resource.NewOutputProperty(resource.Output{Element: roleMappings, Known: true, Dependencies: []resource.URN{"urn:pulumi:s::p::aws:iam/role:Role::admin"}})},
			clusterArgs{authenticationMode: "API_AND_CONFIG_MAP"}, ""},
		{"empty or unknown roleMappings in API mode (pulumi-eks checks them once known)", resource.PropertyMap{"authenticationMode": api,
			"roleMappings": resource.NewArrayProperty(nil)}, clusterArgs{authenticationMode: "API"}, ""},
		{"", resource.PropertyMap{"authenticationMode": api, "roleMappings": unknown}, clusterArgs{authenticationMode: "API"}, ""},
		{"accessEntries' names and their access policies'", resource.PropertyMap{"authenticationMode": api,
			"accessEntries": obj(map[string]any{"admin": admin, "ci": map[string]any{"principalArn": "arn:aws:iam::123456789012:role/ci", "kubernetesGroups": []any{"ci"}}})},
			clusterArgs{authenticationMode: "API", accessEntries: map[string][]string{"admin": {"admin", "view"}, "ci": {}}}, ""},
		{"pulumi-eks's refusal of roleMappings in API mode", resource.PropertyMap{"authenticationMode": api, "roleMappings": roleMappings}, clusterArgs{},
			"The 'roleMappings' property does not support non-empty values when 'authenticationMode' is set to 'API'."},
		{"pulumi-eks's refusal of accessEntries, mode unset, even empty", resource.PropertyMap{"accessEntries": obj(map[string]any{})}, clusterArgs{},
			"The 'accessEntries' property is not supported when 'authenticationMode' is not set."},
		{"pulumi-eks's refusal of accessEntries in CONFIG_MAP mode", resource.PropertyMap{"authenticationMode": str("CONFIG_MAP"),
			"accessEntries": obj(map[string]any{"admin": admin})}, clusterArgs{},
			"The 'accessEntries' property is not supported when 'authenticationMode' is set to 'CONFIG_MAP'."},
		{"accessEntries unknown: their names are not known", resource.PropertyMap{"authenticationMode": api, "accessEntries": unknown}, clusterArgs{},
			`"accessEntries" must be a known map of eks:index:AccessEntry`},
		{"an access entry without principalArn, as @pulumi/aws refuses it", resource.PropertyMap{"authenticationMode": api,
			"accessEntries": obj(map[string]any{"ci": map[string]any{"kubernetesGroups": []any{"ci"}}})}, clusterArgs{},
			`accessEntries["ci"]: Missing required property 'principalArn'`},
		{"an access policy without its scope", resource.PropertyMap{"authenticationMode": api, "accessEntries": obj(map[string]any{"ci": map[string]any{
			"principalArn": "arn:aws:iam::123456789012:role/ci", "accessPolicies": map[string]any{"view": map[string]any{"policyArn": "arn:p"}}}})}, clusterArgs{},
			`accessEntries["ci"].accessPolicies["view"]: the stand-in for pulumi-eks 4.3.0 (test only) takes an eks:index:AccessPolicyAssociation as an object`},
		{"tags that are not a map", resource.PropertyMap{"nodeSecurityGroupTags": str("owned")}, clusterArgs{}, `"nodeSecurityGroupTags" must be a map of strings`},
		{"what it does not implement is named, never ignored", resource.PropertyMap{"nodeGroupOptions": obj(map[string]any{"minSize": 1}),
			"skipDefaultNodeGroup": resource.NewBoolProperty(true), "createOidcProvider": resource.NewBoolProperty(true)}, clusterArgs{},
			`eks:index:Cluster input "nodeGroupOptions", "skipDefaultNodeGroup" not implemented by the stand-in for pulumi-eks 4.3.0 (test only) (it implements accessEntries, ` +
				`authenticationMode, autoMode, clusterSecurityGroupTags, createOidcProvider, desiredCapacity, instanceType, maxSize, minSize, name, nodeSecurityGroupTags, ` +
				`privateSubnetIds, publicSubnetIds, roleMappings, subnetIds, version, vpcId)`},
		{"examples/typescript-automode's Auto Mode", resource.PropertyMap{"authenticationMode": api, "autoMode": obj(map[string]any{"enabled": true})},
			clusterArgs{authenticationMode: "API", autoMode: true, autoModeNodeRole: true}, ""},
		{"Auto Mode with its node role made elsewhere", resource.PropertyMap{"authenticationMode": str("API_AND_CONFIG_MAP"),
			"autoMode": obj(map[string]any{"enabled": true, "createNodeRole": false})}, clusterArgs{authenticationMode: "API_AND_CONFIG_MAP", autoMode: true}, ""},
		{"Auto Mode off", resource.PropertyMap{"autoMode": obj(map[string]any{"enabled": false})}, clusterArgs{}, ""},
		{"pulumi-eks's refusal of Auto Mode without access entries", resource.PropertyMap{"autoMode": obj(map[string]any{"enabled": true})}, clusterArgs{},
			"Access entries are required when using EKS Auto Mode. Use the authentication mode 'API' or 'API_AND_CONFIG_MAP'."},
		{"autoMode.computeConfig is named, not ignored", resource.PropertyMap{"authenticationMode": api,
			"autoMode": obj(map[string]any{"enabled": true, "computeConfig": map[string]any{"nodePools": []any{"system"}}})}, clusterArgs{},
			`eks:index:Cluster input "autoMode.computeConfig" not implemented by the stand-in for pulumi-eks 4.3.0 (test only)`},
		{"autoMode.enabled not a boolean", resource.PropertyMap{"authenticationMode": api, "autoMode": obj(map[string]any{"enabled": "yes"})}, clusterArgs{},
			`"autoMode.enabled" must be a boolean`},
		{"createOidcProvider unknown", resource.PropertyMap{"createOidcProvider": unknown}, clusterArgs{}, `"createOidcProvider" is not known yet`},
		{"pulumi-eks's refusal of a mode", resource.PropertyMap{"authenticationMode": resource.NewStringProperty("CONFIGMAP")}, clusterArgs{},
			"Invalid value for authenticationMode: CONFIGMAP. Allowed values are: CONFIG_MAP, API_AND_CONFIG_MAP, API."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.in)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && !reflect.DeepEqual(got, tc.want):
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	// pulumi-eks's supportsConfigMap / supportsAccessEntries: an unset mode is CONFIG_MAP.
	for mode, want := range map[string][2]bool{"": {true, false}, "CONFIG_MAP": {true, false}, "API_AND_CONFIG_MAP": {true, true}, "API": {false, true}} {
		a := clusterArgs{authenticationMode: mode}
		if got := [2]bool{a.supportsConfigMap(), a.supportsAccessEntries()}; got != want {
			t.Errorf("mode %q: aws-auth %v, access entries %v; want %v", mode, got[0], got[1], want)
		}
	}
}

// TestSchema: the schema (and plugin info) of each version it answers as (versions.go).
func TestSchema(t *testing.T) {
	for _, tc := range []struct{ version, awsRef string }{{"4.3.0", "/aws/v7.48.0"}, {"3.9.1", "/aws/v6.83.2"}} {
		t.Run(tc.version, func(t *testing.T) {
			answerAs(t, tc.version)
			checkSchema(t, tc.version, tc.awsRef)
		})
	}
}

func checkSchema(t *testing.T, version, awsRef string) {
	p := plugin.Server(nil)
	info, err := p.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != version+"+standin" {
		t.Errorf("GetPluginInfo = %v, %v", info, err)
	}
	resp, err := p.GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Name, Version, Description string
		Resources                  map[string]struct {
			IsComponent     bool
			Description     string
			InputProperties map[string]map[string]any
			Properties      map[string]map[string]any
		}
		Types map[string]struct {
			Properties map[string]map[string]any
			Required   []string
		}
	}
	if err := json.Unmarshal([]byte(resp.GetSchema()), &s); err != nil {
		t.Fatal(err)
	}
	c := s.Resources["eks:index:Cluster"]
	if s.Name != "eks" || s.Version != version || !strings.Contains(s.Description, "stand-in for pulumi-eks "+version+" (test only)") || !c.IsComponent || len(s.Resources) != 1 {
		t.Errorf("schema %s %s %q, %d resources, Cluster component %v", s.Name, s.Version, s.Description, len(s.Resources), c.IsComponent)
	}
	if !strings.Contains(c.Description, "pulumi-eks "+version+"'s Cluster") {
		t.Errorf("Cluster: %q", c.Description)
	}
	var inputs []string
	for k := range c.InputProperties {
		inputs = append(inputs, k)
	}
	slices.Sort(inputs)
	if !slices.Equal(inputs, implemented) {
		t.Errorf("inputs %v, want exactly what the stand-in implements, %v", inputs, implemented)
	}
	// Typed as pulumi-eks's: the cluster a reference to the aws resource (at the version of its
	// major version the worlds install), core the CoreData type.
	for prop, ref := range map[string]string{
		"eksCluster":        awsRef + "/schema.json#/resources/aws:eks%2Fcluster:Cluster",
		"nodeSecurityGroup": awsRef + "/schema.json#/resources/aws:ec2%2FsecurityGroup:SecurityGroup",
		"core":              "#/types/eks:index:CoreData",
	} {
		if got := c.Properties[prop]["$ref"]; got != ref {
			t.Errorf("output %s: $ref %v, want %s", prop, got, ref)
		}
	}
	for _, prop := range []string{"kubeconfigJson", "nodeSecurityGroupId", "clusterSecurityGroupId", "oidcProviderArn", "oidcProviderUrl", "oidcIssuer", "defaultNodeGroupAsgName"} {
		if c.Properties[prop]["type"] != "string" {
			t.Errorf("output %s: %v, want a string", prop, c.Properties[prop])
		}
	}
	// The input types, as pulumi-eks's schema has them.
	for typ, props := range map[string][]string{
		"eks:index:RoleMapping":                        {"groups", "roleArn", "username"},
		"eks:index:AccessEntry":                        {"accessPolicies", "kubernetesGroups", "principalArn", "tags", "type", "username"},
		"eks:index:AccessPolicyAssociation":            {"accessScope", "policyArn"},
		"eks:index:AccessPolicyAssociationAccessScope": {"namespaces", "type"},
	} {
		got := slices.Sorted(maps.Keys(s.Types[typ].Properties))
		if !slices.Equal(got, props) {
			t.Errorf("type %s: properties %v, want %v", typ, got, props)
		}
	}
	if ae := c.InputProperties["accessEntries"]; ae["plain"] != true || ae["additionalProperties"].(map[string]any)["$ref"] != "#/types/eks:index:AccessEntry" {
		t.Errorf("input accessEntries: %v, want a plain map of eks:index:AccessEntry", ae)
	}
	core := s.Types["eks:index:CoreData"]
	for _, prop := range []string{"vpcId", "subnetIds", "cluster", "clusterSecurityGroup", "endpoint", "provider", "instanceRoles", "nodeGroupOptions", "clusterIamRole"} {
		if core.Properties[prop] == nil {
			t.Errorf("CoreData has no %s", prop)
		}
	}
}

func TestKubeconfig(t *testing.T) {
	dir := t.TempDir()
	world := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(world, []byte(`apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
  name: harness
contexts:
- context: {cluster: harness, user: harness-admin, namespace: default}
  name: harness
current-context: harness
users:
- name: harness-admin
  user: {token: s3cret}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	user, err := worldUser(world)
	if err != nil || user["token"] != "s3cret" {
		t.Fatalf("worldUser = %v, %v", user, err)
	}
	doc := kubeconfigDocument("https://127.0.0.1:6443", "Q0E=", user)
	data, _ := json.Marshal(doc)
	for _, want := range []string{`"current-context":"aws"`, `"certificate-authority-data":"Q0E="`, `"server":"https://127.0.0.1:6443"`,
		`"name":"kubernetes"`, `"users":[{"name":"aws","user":{"token":"s3cret"}}]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("kubeconfig %s lacks %s", data, want)
		}
	}
	if _, err := worldUser(""); err == nil || !strings.Contains(err.Error(), "STANDIN_EKS_KUBECONFIG is not set") {
		t.Errorf("without STANDIN_EKS_KUBECONFIG: %v", err)
	}
}

// mapRolesYAML is the document pulumi-eks writes: js-yaml's dump of [...roleMappings,
// ...instanceRoleMappings] as {rolearn, username, groups} (createAwsAuthData). The expected texts
// were printed by js-yaml 4.2.0's dump (the version pulumi-eks 4.3.0's yarn.lock pins) of
// exactly those objects.
func TestMapRoles(t *testing.T) {
	const instanceRole = "arn:aws:iam::123456789012:role/demo-instanceRole-role-1234567"
	roleMappings := []any{
		map[string]any{"roleArn": "arn:aws:iam::123456789012:role/admin", "username": "admin", "groups": []any{"system:masters"}},
		// A role path makes the ARN longer than the width: js-yaml folds it (in one piece).
		map[string]any{"roleArn": "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_ReadOnly_0123456789abcdef",
			"username": "sso:{{SessionName}}", "groups": []any{"view", "true"}},
		map[string]any{"roleArn": "arn:aws:iam::123456789012:role/ci", "username": nil, "groups": []any{}},
		map[string]any{"roleArn": "arn:aws:iam::123456789012:role/no-username", "groups": []any{"ci"}}, // username undefined
	}
	for _, tc := range []struct {
		name         string
		roleMappings any
		want         string
	}{
		{"the instance role alone", nil, "- rolearn: arn:aws:iam::123456789012:role/demo-instanceRole-role-1234567\n  username: system:node:{{EC2PrivateDNSName}}\n" +
			"  groups:\n    - system:bootstrappers\n    - system:nodes\n"},
		{"roleMappings, then the instance role", roleMappings, "- rolearn: arn:aws:iam::123456789012:role/admin\n  username: admin\n  groups:\n    - system:masters\n" +
			"- rolearn: >-\n    arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_ReadOnly_0123456789abcdef\n" +
			"  username: sso:{{SessionName}}\n  groups:\n    - view\n    - 'true'\n" +
			"- rolearn: arn:aws:iam::123456789012:role/ci\n  username: null\n  groups: []\n" +
			"- rolearn: arn:aws:iam::123456789012:role/no-username\n  groups:\n    - ci\n" +
			"- rolearn: arn:aws:iam::123456789012:role/demo-instanceRole-role-1234567\n  username: system:node:{{EC2PrivateDNSName}}\n" +
			"  groups:\n    - system:bootstrappers\n    - system:nodes\n"},
	} {
		got, err := mapRolesYAML(tc.roleMappings, instanceRole)
		if err != nil || got != tc.want {
			t.Errorf("%s: mapRoles\n%s%v\nwant\n%s", tc.name, got, err, tc.want)
		}
		// And it reads back as the mappings.
		var entries []map[string]any
		if err := yaml.Unmarshal([]byte(got), &entries); err != nil || entries[len(entries)-1]["rolearn"] != instanceRole {
			t.Errorf("%s: mapRoles reads back as %v, %v", tc.name, entries, err)
		}
	}
	if _, err := mapRolesYAML([]any{"arn:aws:iam::123456789012:role/admin"}, instanceRole); err == nil || !strings.Contains(err.Error(), "roleMappings[0]") {
		t.Errorf("a mapping that is not an object: %v", err)
	}
}

// The security groups' tags: pulumi-eks's spreads, later keys winning.
func TestSecurityGroupTags(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want map[string]string
	}{
		{"cluster security group, no tags", clusterSecurityGroupTags("demo", nil), map[string]string{"Name": "demo-eksClusterSecurityGroup"}},
		{"clusterSecurityGroupTags, which may replace Name", clusterSecurityGroupTags("demo", map[string]string{"team": "a", "Name": "mine"}),
			map[string]string{"Name": "mine", "team": "a"}},
		{"node security group, no tags", nodeSecurityGroupTags("demo", "demo-eksCluster-1234567", nil),
			map[string]string{"Name": "demo-nodeSecurityGroup", "kubernetes.io/cluster/demo-eksCluster-1234567": "owned"}},
		{"nodeSecurityGroupTags, which may replace Name and the cluster's key", nodeSecurityGroupTags("demo", "demo-eksCluster-1234567",
			map[string]string{"karpenter.sh/discovery": "demo", "Name": "nodes", "kubernetes.io/cluster/demo-eksCluster-1234567": "shared"}),
			map[string]string{"Name": "nodes", "kubernetes.io/cluster/demo-eksCluster-1234567": "shared", "karpenter.sh/discovery": "demo"}},
	} {
		if !maps.Equal(tc.got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   any
		want map[string]string
		err  string
	}{
		{nil, nil, ""},
		{map[string]any{"a": "b"}, map[string]string{"a": "b"}, ""},
		{map[string]string{"a": "b"}, map[string]string{"a": "b"}, ""},
		{map[string]any{"a": 1.0}, nil, `tag "a" is a float64, not a string`},
		{"a", nil, "not a map of strings"},
	} {
		got, err := stringMapOf("nodeSecurityGroupTags", tc.in)
		if (tc.err == "" && (err != nil || !maps.Equal(got, tc.want))) || (tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err))) {
			t.Errorf("stringMapOf(%v) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestConstructOnlyTheCluster(t *testing.T) {
	p := plugin.Server(nil)
	_, err := p.Construct(context.Background(), &pulumirpc.ConstructRequest{Type: "eks:index:NodeGroupV2", Name: "ng"})
	if err == nil || !strings.Contains(err.Error(), "the stand-in for pulumi-eks 4.3.0 (test only) constructs only eks:index:Cluster") {
		t.Errorf("Construct of another type: %v", err)
	}
}
