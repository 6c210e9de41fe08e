package plan

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// resolveAdoption resolves adopt: the names of the running install's parts, which the children
// import instead of creating. Every name and import id is built from the cluster name, so it
// must be known when the component is constructed (a cluster that exists has a known name).
func (p *Plan) resolveAdoption(args inputs.KarpenterArgs) error {
	if args.Adopt == nil || p.Release.IsAutoMode() {
		return nil
	}
	cluster, ok := p.known.String(field.NewPath("clusterName"))
	if !ok {
		return field.Invalid(field.NewPath("adopt"), "needs clusterName known when the component is constructed: the names and ids of what it imports are the cluster's (a running install's cluster exists, so pass its name, not an output that a preview does not know)")
	}
	names := args.Adopt.Names(p.Release, cluster)
	p.Adopt = &names
	return nil
}

// ResumeAdoption makes adopt inert after the `up` that adopted: that `up` gave the install's
// roles the component's own descriptions (describe, the children's), so when a later program no
// longer sets adopt, the getting-started node role (or, with nodeRoleArn, controller role) that
// says it is this component's is not a running install beside this one but this one, and the
// adoption resumes as `adopt: {}` would: the same names, the same imports, nothing renamed or
// replaced. What the guide does not name (the interruption rules: CloudFormation named them) is
// kept as the stack has it (AdoptionNames.Resumed). A role that cannot be read is left to the
// running-install check, which says so.
func (p *Plan) ResumeAdoption(r ClusterReader, describe func(what string) string) {
	if p.Adopt != nil || p.Release.IsAutoMode() {
		return
	}
	cluster, ok := p.known.String(field.NewPath("clusterName"))
	if !ok {
		return
	}
	names := inputs.Adoption{}.Names(p.Release, cluster)
	role, what := names.NodeRole, "node role"
	switch {
	case p.CreateNodeRole:
	case p.CreateControllerIAM:
		role, what = names.ControllerRole, "controller role"
	default:
		return
	}
	if !describedAsOurs(r, role, what, describe) {
		return
	}
	names.Resumed = true
	p.Adopt = &names
}

// InstallReader answers whether a running install's parts exist in the account (the component
// reads them through its aws provider: children/readcluster.go). Each answers false, nil for
// something that does not exist.
type InstallReader interface {
	Role(name string) (IAMRead, error)
	// Policy reads a policy by name; arn is where it is under path "/", read first.
	Policy(name, arn string) (IAMRead, error)
	InstanceProfileExists(name string) (bool, error)
	QueueExists(name string) (bool, error)
	AccessEntry(cluster, principalArn string) (AccessEntryRead, error)
	AddonExists(cluster, addon string) (bool, error)
}

// ReadAdoption reads, before any child is registered, which of the parts adopt names exist: those
// are imported, and the others created under the component's own names. An adopted install grows
// and upgrades that way: the policies a later Karpenter splits out (one controller policy to
// v1.8, five from v1.9, six from v1.12), an access entry after aws-auth, the Pod Identity agent
// turned on later. A name the user gave that does not exist is a finding at its field: importing
// it would fail in the engine ("resource does not exist") without saying which input to fix.
// After the first `up` every part is the component's and exists, so adopt changes nothing.
// policyKeys are the layout keys of the controller policies the component has for its release.
// describe is the description the component gives its roles (AdoptionNames.Taken).
func (p *Plan) ReadAdoption(r InstallReader, aws catalog.AwsScope, policyKeys []string, podIdentityAgentAddon string, describe func(what string) string) error {
	a := p.Adopt
	if a == nil {
		return nil
	}
	cluster, _ := p.known.String(field.NewPath("clusterName"))
	var errs []error
	// keep reads whether the part named *name exists, and forgets the name when it does not.
	keep := func(name *string, what string, exists func(string) (bool, error)) {
		if *name == "" {
			return
		}
		ok, err := exists(*name)
		switch {
		case err != nil:
			errs = append(errs, field.Invalidf(field.NewPath("adopt"), "could not read %s %s of the install (%v); adopting reads each part it would import (docs/behaviour.md, Checks against the cluster)", what, *name, err))
		case !ok && a.Given[*name] != nil:
			errs = append(errs, field.Invalidf(a.Given[*name], "%q: no %s of that name exists where the aws provider looks (its account); check the name, or leave it unset for the component to create its own", *name, what))
		case !ok:
			*name = ""
		}
	}
	// withArn is an IAM read whose ARN, path included, the adoption keeps (AdoptionNames.Arns).
	withArn := func(read func(string) (IAMRead, error)) func(string) (bool, error) {
		return func(name string) (bool, error) {
			got, err := read(name)
			if got.Exists && got.Arn != "" {
				a.Arns[name] = got.Arn
			}
			return got.Exists, err
		}
	}
	a.Arns = map[string]string{}
	if p.CreateNodeRole {
		keep(&a.NodeRole, "IAM role", withArn(r.Role))
	}
	if p.CreateInstanceProfile {
		keep(&a.InstanceProfile, "IAM instance profile", r.InstanceProfileExists)
	}
	if p.CreateControllerIAM {
		keep(&a.ControllerRole, "IAM role", withArn(r.Role))
		for _, key := range policyKeys {
			name := a.ControllerPolicies[key]
			keep(&name, "IAM policy", withArn(func(name string) (IAMRead, error) { return r.Policy(name, aws.PolicyArn(name)) }))
			a.ControllerPolicies[key] = name
		}
	}
	if p.Interruption {
		keep(&a.Queue, "SQS queue", r.QueueExists)
	}
	a.Taken = a.Resumed || p.takenBefore(r, describe)
	var err error
	if principal, ok := p.adoptedNodeRoleArn(aws); ok && p.NodeAccess == inputs.NodeAccessEntry {
		entry, err := r.AccessEntry(cluster, principal)
		if err != nil {
			errs = append(errs, field.Invalidf(field.NewPath("adopt"), "could not read the access entry of %s on cluster %s (%v)", principal, cluster, err))
		}
		a.AccessEntry = entry.Exists
	}
	if p.CreatePodIdentityAgent {
		if a.PodIdentityAgent, err = r.AddonExists(cluster, podIdentityAgentAddon); err != nil {
			errs = append(errs, field.Invalidf(field.NewPath("adopt"), "could not read the %s add-on of cluster %s (%v)", podIdentityAgentAddon, cluster, err))
		}
	}
	return errors.Join(errs...)
}

// takenBefore says whether an earlier `up` of this component adopted the install: the controller
// role (or, without one, the node role) carries the component's description, which that `up`
// wrote before anything that depends on the role (the pod identity association). A role that
// cannot be read counts as not taken: the imports then stand.
func (p *Plan) takenBefore(r InstallReader, describe func(string) string) bool {
	role, what := p.Adopt.ControllerRole, "controller role"
	if !p.CreateControllerIAM || role == "" {
		role, what = p.Adopt.NodeRole, "node role"
		if !p.CreateNodeRole || role == "" {
			return false
		}
	}
	return describedAsOurs(r, role, what, describe)
}

// Description is the description the component gives an AWS child that has one (its roles,
// policies and rules): what it is, and the stack (project/stack) and component that own it.
func Description(what, stack, component string) string {
	return descriptionPrefix(what) + stack + ", component " + component + ")"
}

// descriptionPrefix is what every Description of what starts with, whichever stack and component.
func descriptionPrefix(what string) string { return "Karpenter " + what + " (Pulumi " }

// describedByAComponent says whether description is one the component writes for what, of any
// stack and component.
func describedByAComponent(description, what string) bool {
	return strings.HasPrefix(description, descriptionPrefix(what))
}

// describedAsOurs says whether the IAM role name exists with the description the component gives
// its what ("node role", "controller role"): an earlier `up` of this component has it.
func describedAsOurs(r interface{ Role(string) (IAMRead, error) }, name, what string, describe func(string) string) bool {
	read, err := r.Role(name)
	return err == nil && read.Exists && read.Description == describe(what)
}

// adoptedNodeRoleArn is the ARN of the install's node role whose access entry an adoption may
// import: the adopted role, or the nodeRoleArn the user gave. A node role the component creates
// has none yet.
func (p *Plan) adoptedNodeRoleArn(aws catalog.AwsScope) (string, bool) {
	if !p.CreateNodeRole {
		return p.known.String(field.NewPath("nodeRoleArn"))
	}
	if p.Adopt.NodeRole == "" {
		return "", false
	}
	return p.Adopt.Arn(p.Adopt.NodeRole, aws.RoleArn), true
}

// adoptWarnings are the install's pools and classes adopt names that the program does not
// declare: they stay in the cluster, and the component does not manage them.
func (p *Plan) adoptWarnings() []field.Warning {
	if p.Adopt == nil {
		return nil
	}
	var out []field.Warning
	poolKind, classKind := p.Release.NodePool.Kind, p.Release.NodeClass.Kind
	for _, name := range p.Adopt.NodePools {
		if !slices.ContainsFunc(p.Pools, func(s inputs.NodePoolSpec) bool { return s.Name == name }) {
			out = append(out, field.Warnf(field.NewPath("adopt", "nodePoolNames"), "the install's %s %s is not among nodePools: it stays in the cluster as it is, not managed by the component (declare it to take it over, or delete it with kubectl)", poolKind, name))
		}
	}
	for _, name := range p.Adopt.NodeClasses {
		if !slices.ContainsFunc(p.Classes, func(s inputs.NodeClassSpec) bool { return s.Name == name }) {
			out = append(out, field.Warnf(field.NewPath("adopt", "nodeClassNames"), "the install's %s %s is not among nodeClasses: it stays in the cluster as it is, not managed by the component (its pools' nodes keep running on it)", classKind, name))
		}
	}
	return out
}

// DriftingFields are the fields of an adopted NodePool (pool) or node class whose value the
// component would change in the running object, that Karpenter's drift covers: each one replaces
// every node of the object (catalog.NodeClassHashIgnored, NodePoolHashed). desired is the spec the
// component applies, live the object's spec as the API server holds it, both as encoding/json
// decodes them. Only what the component sets is compared, and a map only by its keys the component
// sets: what it leaves out stays as the install's other field managers wrote it, defaults included. A class's amiSelectorTerms that
// differ are named too (drift when the images they resolve to differ from the nodes').
func DriftingFields(pool bool, desired, live map[string]any) []string {
	var out []string
	if pool {
		d, _ := desired[catalog.NodePoolHashed].(map[string]any)
		l, _ := live[catalog.NodePoolHashed].(map[string]any)
		for _, path := range differences(d, l, catalog.NodePoolHashed) {
			if !slices.ContainsFunc(catalog.NodePoolHashIgnored, func(ignored string) bool { return path == ignored || strings.HasPrefix(path, ignored+".") }) {
				out = append(out, path)
			}
		}
		return out
	}
	for _, path := range differences(desired, live, "") {
		top, _, _ := strings.Cut(path, ".")
		if top == catalog.DriftAMI || !slices.Contains(catalog.NodeClassHashIgnored, top) {
			out = append(out, path)
		}
	}
	return out
}

// differences are the paths under prefix where desired sets something live does not hold:
// maps key by key, anything else (lists, scalars) whole, numbers by value.
func differences(desired, live map[string]any, prefix string) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(desired)) {
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		want, got := desired[key], live[key]
		if w, ok := want.(map[string]any); ok {
			g, _ := got.(map[string]any)
			out = append(out, differences(w, g, path)...)
			continue
		}
		if !sameValue(want, got) {
			out = append(out, path)
		}
	}
	return out
}

// sameValue compares two JSON values as encoding/json decodes them (numbers are float64 on both
// sides, so the API server's 1 equals the component's 1.0), lists as Karpenter's hash does
// (SlicesAsSets).
func sameValue(a, b any) bool {
	la, aList := a.([]any)
	lb, bList := b.([]any)
	if aList || bList {
		if !aList || !bList || len(la) != len(lb) {
			return false
		}
		for _, x := range la {
			if !slices.ContainsFunc(lb, func(y any) bool { return sameValue(x, y) }) {
				return false
			}
		}
		return true
	}
	ma, aMap := a.(map[string]any)
	mb, bMap := b.(map[string]any)
	if aMap || bMap {
		if !aMap || !bMap || len(ma) != len(mb) {
			return false
		}
		for k, v := range ma {
			if w, ok := mb[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}
