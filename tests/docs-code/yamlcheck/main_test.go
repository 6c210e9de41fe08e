package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../../.."

func schema(t *testing.T) *Schema {
	t.Helper()
	s, err := loadSchema(filepath.Join(root, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExampleMatchesSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "examples/yaml/Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checked, problems, err := schema(t).checkProgram(data)
	if err != nil {
		t.Fatal(err)
	}
	if checked != 1 || len(problems) > 0 {
		t.Fatalf("checked %d resources, problems: %v", checked, problems)
	}
}

// Each case breaks a valid program in one way; the validator must name the problem.
func TestRejects(t *testing.T) {
	const valid = `
resources:
  k:
    type: karpenter:Karpenter
    properties:
      clusterName: ${cluster.eksCluster.name}
      interruptionHandling: true
      nodePools:
        - name: spot
          weight: 10
          requirements:
            - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
          taints:
            - {key: spot, value: "true", effect: NoSchedule}
          disruption:
            consolidationPolicy: WhenEmpty
            budgets: [{nodes: "10%"}]
      tags: {team: platform}
      values:
        dnsPolicy: Default
        settings: {featureGates: {spotToSpotConsolidation: true}}
`
	cases := []struct{ name, from, to, want string }{
		{"misspelt property", "taints:", "taint:", `has no property "taint"`},
		{"misspelt top-level input", "clusterName:", "clustername:", `has no property "clustername"`},
		{"missing required input", "clusterName: ${cluster.eksCluster.name}", "", `missing required property "clusterName"`},
		{"bad enum value", "effect: NoSchedule", "effect: NoScheduled", "want one of NoSchedule, PreferNoSchedule, NoExecute"},
		{"nested type property", "consolidationPolicy:", "consolidationPolicies:", `has no property "consolidationPolicies"`},
		{"boolean for a string", `value: "true"`, "value: true", "want a string"},
		{"string for a boolean", "interruptionHandling: true", "interruptionHandling: yes please", "want a boolean"},
		{"string for an integer", "weight: 10", "weight: ten", "want an integer"},
		{"object for a list", "values: [spot]", "values: {spot: 1}", "want a list"},
		{"map value type", "tags: {team: platform}", "tags: {team: [a]}", "want a string"},
		{"unknown resource", "karpenter:Karpenter", "karpenter:Karpenters", "no resource karpenter:index:Karpenters"},
	}
	s := schema(t)
	if _, problems, err := s.checkProgram([]byte(valid)); err != nil || len(problems) > 0 {
		t.Fatalf("the valid program fails: %v %v", err, problems)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			program := strings.Replace(valid, c.from, c.to, 1)
			if program == valid {
				t.Fatalf("%q is not in the program", c.from)
			}
			_, problems, err := s.checkProgram([]byte(program))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
				t.Fatalf("want a problem containing %q, got %q", c.want, problems)
			}
		})
	}
}
