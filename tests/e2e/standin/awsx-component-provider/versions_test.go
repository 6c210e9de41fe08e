//go:build e2e

package main

// What the version the stand-in answers as (versions.go) changes in it: its name and version (and
// its schema: TestSchema), its refusals, and what it registers (against the Go SDK's mocks).

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
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
	if got := versions; strings.Join(got, " ") != "3.9.0 2.22.0" {
		t.Errorf("versions %v: 3.9.0, the default, then 2.22.0", got)
	}
	byType := []string{"isolatedSubnets", "privateSubnets", "publicSubnets"}
	for _, tc := range []struct {
		version, awsChild string
		byType            bool
	}{
		{"3.9.0", "7.42.0", true},
		{"2.22.0", "6.66.3", false},
	} {
		t.Run(tc.version, func(t *testing.T) {
			answerAs(t, tc.version)
			name := "stand-in for pulumi-awsx " + tc.version + " (test only)"
			if rel.version != tc.version || rel.awsChildVersion != tc.awsChild || standIn != name || plugin.Version() != tc.version || plugin.StandIn() != name {
				t.Errorf("release %+v, %q", rel, standIn)
			}
			// What it registers: the documentation's Vpc, its children at the version's @pulumi/aws,
			// its subnets with the version's inputs, its outputs the version's.
			m, _, state := constructDocsVpc(t)
			for _, r := range m.regs {
				if r.typ != vpcType && r.version != tc.awsChild {
					t.Errorf("%s %s registered at %q, want %s", r.typ, r.name, r.version, tc.awsChild)
				}
				if r.typ != "aws:ec2/subnet:Subnet" {
					continue
				}
				inputs := slices.Sorted(maps.Keys(r.inputs.Mappable()))
				want := []string{"availabilityZone", "cidrBlock", "mapPublicIpOnLaunch", "tags", "vpcId"}
				if tc.version == "3.9.0" {
					want = []string{"assignIpv6AddressOnCreation", "availabilityZone", "cidrBlock", "ipv6CidrBlock", "mapPublicIpOnLaunch", "tags", "vpcId"}
				}
				if !slices.Equal(inputs, want) {
					t.Errorf("subnet %s inputs %v, want %v", r.name, inputs, want)
				}
			}
			for _, prop := range byType {
				if _, ok := state[prop]; ok != tc.byType {
					t.Errorf("output %s returned %v, want %v", prop, ok, tc.byType)
				}
			}
		})
	}
	if err := plugin.SetVersion("3.8.0"); err == nil || plugin.Version() != "3.9.0" || rel.version != "3.9.0" {
		t.Errorf("3.8.0: %v, answering as %s (%s)", err, plugin.Version(), rel.version)
	}
}

// TestVersionRefusals: what 2.22.0 refuses otherwise (vpc.ts's validateNatGatewayStrategy, which
// counts private subnets only, in its words) and does not refuse (two unnamed specs of a type,
// which 3.x's validateAndNormalizeSubnetInputs refuses).
func TestVersionRefusals(t *testing.T) {
	publicIsolated := []subnetSpec{{typ: "Public"}, {typ: "Isolated"}}
	twoPrivate := resource.NewPropertyMapFromMap(map[string]any{"subnetSpecs": []any{map[string]any{"type": "Private"}, map[string]any{"type": "Private"}}})
	for _, tc := range []struct {
		version, nat, specs string
	}{
		{"3.9.0", "", "Invalid subnet specifications:\n - Multiple subnet specs of type \"private\" require unique names."},
		{"2.22.0", "If NAT Gateway strategy is 'OnePerAz' or 'Single', both private and public subnets must be declared. " +
			"The private subnet creates the need for a NAT Gateway, and the public subnet is required to host the NAT Gateway resource.", ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			answerAs(t, tc.version)
			for _, nat := range []string{"single", "oneperaz"} {
				if err := validateNatGatewayStrategy(nat, publicIsolated); (tc.nat == "" && err != nil) || (tc.nat != "" && (err == nil || err.Error() != tc.nat)) {
					t.Errorf("%s, public and isolated subnets: %v, want %q", nat, err, tc.nat)
				}
				if err := validateNatGatewayStrategy(nat, []subnetSpec{{typ: "Public"}, {typ: "Private"}}); err != nil {
					t.Errorf("%s, public and private subnets: %v", nat, err)
				}
			}
			if _, err := parseArgs(twoPrivate); (tc.specs == "" && err != nil) || (tc.specs != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.specs))) {
				t.Errorf("two unnamed private specs: %v, want %q", err, tc.specs)
			}
		})
	}
}
