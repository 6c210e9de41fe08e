package plan

import (
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// Known is what the engine sent known of the Input-typed inputs at Construct (inputs/doc.go,
// "Values not known at Construct"): Value answers the input at a path (clusterName,
// discovery.subnetIds[0], nodeClasses[1].subnetSelectorTerms[0].id) when it is known; From names
// the resources of the program a path's value is an output of (its dependencies, known or not);
// Later are the `karpenter:"later"` lists a preview could not know at all (their length
// neither). The zero Known knows nothing.
type Known struct {
	Value func(path *field.Path) (string, bool)
	From  func(path *field.Path) []Resource
	Later []*field.Path
}

// Resource is a resource of the program, by its type token and name.
type Resource struct {
	Type, Name string
}

// String is how a finding names it: `eks:index:Cluster "demo"`.
func (r Resource) String() string { return fmt.Sprintf("%s %q", r.Type, r.Name) }

// ResourcesOf are the resources the value at path is an output of.
func (k Known) ResourcesOf(path *field.Path) []Resource {
	if k.From == nil {
		return nil
	}
	return k.From(path)
}

// String is the input at path when the engine sent it known.
func (k Known) String(path *field.Path) (string, bool) {
	if k.Value == nil {
		return "", false
	}
	return k.Value(path)
}

// KnownInput is the component's input at path when the engine sent it known at Construct: the
// few decisions that shape the set of children (the controller policy layout) read it.
func (p *Plan) KnownInput(path *field.Path) (string, bool) {
	return p.known.String(path)
}

// ClusterRef is the cluster the component reads before planning (the plan's defaults follow
// it), or why it reads none: Name is set when it reads one, Waits says why the checks wait (a
// fact about clusterName, on whose path the plan warns), Err is a finding about clusterName that
// makes reading pointless.
type ClusterRef struct {
	Name string
	// Created: the name is an output of a resource of the program, so a cluster that does not
	// exist yet at a preview is one this update creates.
	Created bool
	Waits   string
	Err     error
}

// ClusterToRead says which cluster to read for args: none with readCluster false, and none
// while its name is unknown.
func ClusterToRead(args inputs.KarpenterArgs, known Known) ClusterRef {
	if !readsCluster(args) {
		return ClusterRef{}
	}
	name, ok := known.String(field.NewPath("clusterName"))
	if !ok {
		return ClusterRef{Waits: "not known yet (an output of a resource this update creates)"}
	}
	if err := inputs.CheckClusterName(field.NewPath("clusterName"), name); err != nil {
		return ClusterRef{Err: err} // no cluster can have that name: nothing to read
	}
	return ClusterRef{Name: name, Created: len(known.ResourcesOf(field.NewPath("clusterName"))) > 0}
}
