package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"gopkg.in/yaml.v3"
)

// Args are a render's args: the component to construct and its inputs.
type Args struct {
	Type, Name, Project, Stack string
	Inputs                     property.Map
	// Providers (package to "urn::id") and Config ("ns:key" to value) are what the engine
	// sends with a construct besides the inputs. Render sends none; tests set them.
	Providers, Config map[string]string
	// Cluster is the args' `cluster`: what the component reads when it checks its inputs
	// against the cluster (cluster_mock.go); nil: it reads nothing (readCluster false).
	Cluster *Cluster
	// Preview constructs as a preview does (tests; render is an `up`'s construct).
	Preview bool
}

// ParseArgs parses a render args file (JSON or YAML): the component's inputs by their schema
// names, plus optional `type` (one of the plugin's Components; Default when unset), `name`
// (default "karpenter"), `project` and `stack` (which, like account and region, seed the
// physical names), and `cluster` (the cluster to check the inputs against, cluster_mock.go).
func (pl Plugin) ParseArgs(data []byte) (Args, error) {
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return Args{}, fmt.Errorf("reading args: %w", err)
	}
	// A JSON round trip turns YAML's types (int, map[string]any) into JSON's.
	b, err := json.Marshal(raw)
	if err != nil {
		return Args{}, fmt.Errorf("reading args: %w", err)
	}
	var inputs map[string]any
	if err := json.Unmarshal(b, &inputs); err != nil || inputs == nil {
		return Args{}, errors.New("reading args: the file must hold an object of the component's inputs")
	}
	args := Args{Type: pl.Default, Name: "karpenter", Project: "project", Stack: "stack"}
	for key, dst := range map[string]*string{"type": &args.Type, "name": &args.Name, "project": &args.Project, "stack": &args.Stack} {
		if v, ok := inputs[key]; ok {
			s, isString := v.(string)
			if !isString || s == "" {
				return Args{}, field.Invalid(field.NewPath(key), "must be a non-empty string")
			}
			*dst = s
			delete(inputs, key)
		}
	}
	if !slices.Contains(pl.Components, args.Type) {
		return Args{}, field.Invalidf(field.NewPath("type"), "%q is not a component of this package; one of: %s", args.Type, strings.Join(slices.Sorted(slices.Values(pl.Components)), ", "))
	}
	if raw, ok := inputs["cluster"]; ok {
		delete(inputs, "cluster")
		if args.Cluster, err = parseCluster(raw, inputs); err != nil {
			return Args{}, err
		}
	} else if args.Type == pl.Default {
		// Render reads no AWS: without a described cluster, nothing is read or checked.
		if read, set := inputs["readCluster"]; set && read != false {
			return Args{}, field.Invalid(field.NewPath("readCluster"), "render reads no cluster; describe the one to check against in the args' `cluster` (docs/behaviour.md, Checks against the cluster), or leave readCluster unset")
		}
		inputs["readCluster"] = false
	}
	args.Inputs = presource.FromResourcePropertyMap(presource.NewPropertyMapFromMap(inputs))
	return args, nil
}

// componentType is the component to construct: the plugin's Default unless `type` names
// another.
func (pl Plugin) componentType(a Args) string {
	if a.Type == "" {
		return pl.Default
	}
	return a.Type
}
