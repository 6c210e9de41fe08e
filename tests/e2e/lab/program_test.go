//go:build e2e

package lab

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The programs of programs/ render, for every shape a scenario asks, to YAML documents.
func TestProgramsRender(t *testing.T) {
	w := &World{VPC: &VPC{ID: "vpc-1", SubnetIDs: []string{"subnet-a", "subnet-b"}, SecurityGroupID: "sg-1"}}
	for _, o := range []ProgramOptions{{}, {Inputs: "version: 0.36.2\n"}, {NoComponent: true}, {NoDiscovery: true, AuthenticationMode: "CONFIG_MAP", Cluster: "tags:\n  a: b\n"}, {OIDCIssuer: "https://x"}} {
		for _, name := range []string{"program.yaml", "program-automode.yaml", "program-sdk.yaml"} {
			prog, err := w.ProgramFile(name, o)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(prog), &doc); err != nil {
				t.Fatalf("%s %+v: %v\n%s", name, o, err, prog)
			}
		}
	}
	prog, err := w.Program(ProgramOptions{Inputs: "version: 0.36.2\n"})
	if err != nil || !strings.Contains(prog, `version: "1.29"`) {
		t.Errorf("a program installing Karpenter 0.36.2 should make a Kubernetes 1.29 cluster (the newest it supports):\n%s", prog)
	}
}
