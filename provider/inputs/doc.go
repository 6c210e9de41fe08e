// Package inputs holds the component's input types — KarpenterArgs, NodePoolSpec, NodeClassSpec
// and everything they contain, from which the schema and every SDK are generated — and every
// check on them. A check names the path of what it refuses (a field.Path, in a field error; the
// errors print one per line), and all problems of an input are reported together: the plain
// inputs (validate_*.go, against the catalog's release; a check of an input with a default is
// given the value the plan resolved), the raw inputs before they decode (properties.go: unknown
// keys, outputs inside plain fields), chart values (values.go), and the values only known once
// they resolve (checks.go), as functions of the resolved value that the children layer's gate
// runs.
//
// # Values not known at Construct
//
// An input may be an output of another resource of the program. At `pulumi up` the engine sends
// the component every input known (the resources it comes from exist by then); at a preview, one
// from a resource the same update creates (a cluster's name, its subnets) arrives unknown. The
// component still decides at Construct which children it registers and how, so each field's
// declaration here says how it takes such a value — this is the one place that says it:
//
//   - Input-typed fields (the component's are KarpenterArgs.Deferred: clusterName, the role and
//     policy ARNs, tags, chart values, discovery ids; a class's role, instance profile and
//     selector ids) are wired into the children as Outputs. Their checks (checks.go) run in the
//     children layer's gate (children/gate.go) once the values resolve, and every child waits
//     on the gate: at a preview a bad value is reported as soon as it is known, and at `up`
//     before any child is created.
//   - Plain fields tagged `karpenter:"through"` (labels, annotations, taint values, tags,
//     selector-term tags, user data, kubelet maps) only pass through to the custom resources:
//     nothing is planned from them. At a preview an unknown one becomes a placeholder
//     (unknown.go) that the checks skip and the children layer turns back into an unknown output
//     (children/customresources.go); at `up` it is known and checked as any plain value.
//   - Plain lists tagged `karpenter:"later"` (the discovery ids) decide only how many children
//     exist: at a preview an unknown one stands empty, and its path is handed on (plan.Known's
//     Later) for the plan's warning that the preview shows no discovery tags for it.
//   - Every other plain field decides the plan: an unknown one is refused, naming its path.
//
// ResolvePlainOutputs (properties.go) applies the last three rules to the raw Construct inputs
// before the SDK decodes them into the args (the SDK refuses any output value in a plain field,
// even a known one), and returns the paths of the later lists (each a field.Path).
//
// The few decisions that shape the set of children from an Input-typed value — which cluster to
// read (clusterName), the controller policy layout, adoption's names, the checks of ids and
// roles against the cluster, who owns a discovery id — need to know at Construct whether it is
// known, which an Output cannot say. They read plan.Known instead: the raw Construct inputs, with
// the dependencies the engine sent, walked by field.Path, and the later lists' paths. The
// provider's Construct (provider/construct.go) builds it beside the decoded args and hands both
// to the component's constructor.
//
// Layers: field ← catalog ← inputs ← plan ← children ← provider. inputs takes no Pulumi context
// and creates no Output: it names Pulumi's Input types only because the args carry them.
package inputs
