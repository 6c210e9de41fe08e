//go:build e2e

package main

// The stand-in's own checks, without an engine (tests/e2e/snippets_test.go runs its Construct
// through the real engine, from the README's programs):
//
//	cd tests && GOWORK=off go test -tags e2e ./e2e/standin/eks-component-provider/

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
		{"nulls are unset", resource.PropertyMap{"vpcId": resource.NewNullProperty()}, clusterArgs{}, ""},
		{"what it does not implement is named, never ignored", resource.PropertyMap{"vpcId": resource.NewStringProperty("vpc-1"),
			"skipDefaultNodeGroup": resource.NewBoolProperty(true), "createOidcProvider": resource.NewBoolProperty(true)}, clusterArgs{},
			`eks:index:Cluster input "skipDefaultNodeGroup", "vpcId" not implemented by the stand-in for pulumi-eks 4.3.0 (test only) (it implements authenticationMode, createOidcProvider, name, version)`},
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
			case tc.err == "" && got != tc.want:
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

func TestSchema(t *testing.T) {
	p := &provider{}
	info, err := p.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != "4.3.0+standin" {
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
	if s.Name != "eks" || s.Version != "4.3.0" || !strings.Contains(s.Description, "stand-in for pulumi-eks 4.3.0 (test only)") || !c.IsComponent || len(s.Resources) != 1 {
		t.Errorf("schema %s %s %q, %d resources, Cluster component %v", s.Name, s.Version, s.Description, len(s.Resources), c.IsComponent)
	}
	var inputs []string
	for k := range c.InputProperties {
		inputs = append(inputs, k)
	}
	slices.Sort(inputs)
	if !slices.Equal(inputs, implemented) {
		t.Errorf("inputs %v, want exactly what the stand-in implements, %v", inputs, implemented)
	}
	// Typed as pulumi-eks's: the cluster a reference to the aws resource (at the version the
	// snippet worlds install), core the CoreData type.
	for prop, ref := range map[string]string{
		"eksCluster":        "/aws/v7.48.0/schema.json#/resources/aws:eks%2Fcluster:Cluster",
		"nodeSecurityGroup": "/aws/v7.48.0/schema.json#/resources/aws:ec2%2FsecurityGroup:SecurityGroup",
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

// mapRolesYAML is the document pulumi-eks writes (js-yaml's dump of createInstanceRoleMapping).
func TestMapRoles(t *testing.T) {
	var entries []struct {
		RoleARN  string   `json:"rolearn"`
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	}
	if err := yaml.Unmarshal([]byte(mapRolesYAML("arn:aws:iam::123456789012:role/demo-instanceRole-role-1234567")), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].RoleARN != "arn:aws:iam::123456789012:role/demo-instanceRole-role-1234567" ||
		entries[0].Username != "system:node:{{EC2PrivateDNSName}}" || !slices.Equal(entries[0].Groups, []string{"system:bootstrappers", "system:nodes"}) {
		t.Errorf("mapRoles %+v", entries)
	}
}

func TestConstructOnlyTheCluster(t *testing.T) {
	p := &provider{}
	_, err := p.Construct(context.Background(), &pulumirpc.ConstructRequest{Type: "eks:index:NodeGroupV2", Name: "ng"})
	if err == nil || !strings.Contains(err.Error(), "the stand-in for pulumi-eks 4.3.0 (test only) constructs only eks:index:Cluster") {
		t.Errorf("Construct of another type: %v", err)
	}
}
