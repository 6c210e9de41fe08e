//go:build e2e

package main

// What the version the stand-in answers as (versions.go) changes in it: its name and version (and
// its schema: TestSchema), and what it registers (against the Go SDK's mocks).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// answerAs makes the stand-in answer as version for the test (componentprovider's tests check how
// it selects the version).
func answerAs(t *testing.T, version string) {
	t.Helper()
	if err := plugin.SetVersion(version); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plugin.SetVersion(releases[0].version) })
}

func TestVersions(t *testing.T) {
	if got := versions; strings.Join(got, " ") != "4.3.0 3.9.1" {
		t.Errorf("versions %v: 4.3.0, the default, then 3.9.1", got)
	}
	for _, tc := range []struct {
		version, awsChild, awsRef string
	}{
		{"4.3.0", "7.25.0", "/aws/v7.48.0/schema.json"},
		{"3.9.1", "6.79.1", "/aws/v6.83.2/schema.json"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			answerAs(t, tc.version)
			name := "stand-in for pulumi-eks " + tc.version + " (test only)"
			if rel.version != tc.version || rel.awsChildVersion != tc.awsChild || rel.kubernetesChildVersion != "4.19.0" || rel.awsSchemaRef != tc.awsRef ||
				standIn != name || plugin.Version() != tc.version || plugin.StandIn() != name {
				t.Errorf("release %+v, %q", rel, standIn)
			}
			// Its refusals name the version.
			if _, err := parseArgs(resource.PropertyMap{"skipDefaultNodeGroup": resource.NewBoolProperty(true)}); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("an input not implemented: %v", err)
			}
		})
	}
	if err := plugin.SetVersion("3.9.0"); err == nil || plugin.Version() != "4.3.0" || rel.version != "4.3.0" {
		t.Errorf("3.9.0: %v, answering as %s (%s)", err, plugin.Version(), rel.version)
	}
}

type eksMocks struct {
	mu   sync.Mutex
	regs map[string]*pulumirpc.RegisterResourceRequest // by type::name
	ins  map[string]resource.PropertyMap
}

func (m *eksMocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.regs[args.TypeToken+"::"+args.Name], m.ins[args.TypeToken+"::"+args.Name] = args.RegisterRPC, args.Inputs
	state := args.Inputs.Copy()
	state["arn"] = resource.NewStringProperty("arn:aws-cn:test::" + args.Name)
	if args.TypeToken == "aws:eks/cluster:Cluster" {
		state["name"] = resource.NewStringProperty(args.Name + "-1234567")
		state["endpoint"] = resource.NewStringProperty("https://127.0.0.1:6443")
		state["certificateAuthority"] = resource.NewObjectProperty(resource.PropertyMap{"data": resource.NewStringProperty("Q0E=")})
		state["vpcConfig"] = resource.NewObjectProperty(resource.PropertyMap{"clusterSecurityGroupId": resource.NewStringProperty("sg-eks")})
	}
	return args.Name + "-id", state, nil
}

// Call answers as in the aws-cn partition, where the DNS suffix is not amazonaws.com.
func (m *eksMocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	switch args.Token {
	case "aws:index/getPartition:getPartition":
		return resource.NewPropertyMapFromMap(map[string]any{"partition": "aws-cn", "dnsSuffix": "amazonaws.com.cn"}), nil
	case "aws:ec2/getVpc:getVpc":
		return resource.NewPropertyMapFromMap(map[string]any{"id": "vpc-default"}), nil
	case "aws:ec2/getSubnets:getSubnets":
		return resource.NewPropertyMapFromMap(map[string]any{"ids": []any{"subnet-a", "subnet-b"}}), nil
	}
	return nil, fmt.Errorf("unexpected call %s", args.Token)
}

// TestConstructVersions registers a cluster as each version does (API mode; and with Auto Mode)
// and checks what differs: bootstrapSelfManagedAddons, the roles' trust principals and the
// children's versions.
func TestConstructVersions(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("current-context: c\ncontexts: [{name: c, context: {user: u}}]\nusers: [{name: u, user: {token: t}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const roleT, clusterT = "aws:iam/role:Role::", "aws:eks/cluster:Cluster::demo-eksCluster"
	for _, tc := range []struct {
		version  string
		autoMode bool
		// bootstrap is bootstrapSelfManagedAddons as sent ("" when not sent); suffix is the DNS
		// suffix of the trust principals; awsChild the aws children's version.
		bootstrap, suffix, awsChild string
	}{
		{"4.3.0", false, "true", "amazonaws.com", "7.25.0"},
		{"4.3.0", true, "false", "amazonaws.com", "7.25.0"},
		{"3.9.1", false, "", "amazonaws.com.cn", "6.79.1"},
		{"3.9.1", true, "false", "amazonaws.com.cn", "6.79.1"},
	} {
		t.Run(fmt.Sprintf("%s Auto Mode %v", tc.version, tc.autoMode), func(t *testing.T) {
			answerAs(t, tc.version)
			m := &eksMocks{regs: map[string]*pulumirpc.RegisterResourceRequest{}, ins: map[string]resource.PropertyMap{}}
			args := clusterArgs{authenticationMode: "API", autoMode: tc.autoMode, autoModeNodeRole: tc.autoMode}
			err := pulumi.RunErr(func(ctx *pulumi.Context) error {
				_, err := construct(ctx, "demo", args, pprovider.ConstructInputs{}, pulumi.Protect(false), kubeconfig)
				return err
			}, pulumi.WithMocks("proj", "dev", m))
			if err != nil {
				t.Fatal(err)
			}
			cluster := m.ins[clusterT]
			if got := fmt.Sprint(cluster["bootstrapSelfManagedAddons"].Mappable()); (tc.bootstrap == "" && cluster.HasValue("bootstrapSelfManagedAddons")) ||
				(tc.bootstrap != "" && got != tc.bootstrap) {
				t.Errorf("bootstrapSelfManagedAddons %v, want %q", cluster["bootstrapSelfManagedAddons"], tc.bootstrap)
			}
			roles := map[string]string{"demo-eksRole-role": "eks", "demo-instanceRole-role": "ec2"}
			if tc.autoMode {
				roles["demo-nodeRole-role"] = "ec2"
			}
			for role, service := range roles {
				policy := m.ins[roleT+role]["assumeRolePolicy"].StringValue()
				if want := `"Principal":{"Service":["` + service + "." + tc.suffix + `"]}`; !strings.Contains(policy, want) {
					t.Errorf("%s trusts %s, want %s", role, policy, want)
				}
			}
			// The managed policies' ARNs are the partition's in both.
			if arn := m.ins["aws:iam/rolePolicyAttachment:RolePolicyAttachment::demo-eksRole-4b490823"]["policyArn"]; arn.StringValue() != "arn:aws-cn:iam::aws:policy/AmazonEKSClusterPolicy" {
				t.Errorf("cluster policy attachment %v", arn)
			}
			for key, want := range map[string]string{clusterT: tc.awsChild, roleT + "demo-eksRole-role": tc.awsChild,
				"pulumi:providers:kubernetes::demo-eks-k8s": "4.19.0", "aws:eks/accessEntry:AccessEntry::demo-defaultNodeGroupInstanceRole": tc.awsChild} {
				if r := m.regs[key]; r == nil || r.GetVersion() != want {
					t.Errorf("%s registered at %v, want %s", key, r.GetVersion(), want)
				}
			}
		})
	}
}
