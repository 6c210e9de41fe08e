package plan

import (
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// Warnings are what the component says on itself at every preview, each once and in this order:
// the release it installs when it is unverified (allowUnverifiedVersion), its valid inputs that
// need something outside it or that it almost certainly did not mean (New), the checks against
// the cluster (CheckCluster, WaitForCluster), and the inputs a preview could not know.
func (p *Plan) Warnings() []field.Warning {
	var release []field.Warning
	if p.Release.Unverified {
		release = append(release, field.Warning{Path: field.NewPath("version"), Detail: p.Release.UnverifiedWarning()})
	}
	return slices.Concat(release, p.inputWarnings, p.clusterWarnings, p.laterWarnings())
}

// objectWarnings are the warnings of the node classes and the pools, each pool with its class.
func (p *Plan) objectWarnings() []field.Warning {
	var out []field.Warning
	for i, c := range p.Classes {
		out = append(out, inputs.ClassWarnings(p.ClassPath(i), c, p.Release)...)
	}
	for i, pool := range p.Pools {
		var class *inputs.NodeClassSpec
		if j := slices.IndexFunc(p.Classes, func(c inputs.NodeClassSpec) bool { return c.Name == inputs.Deref(pool.NodeClassRef, "") }); j >= 0 {
			class = &p.Classes[j]
		}
		out = append(out, inputs.PoolWarnings(p.PoolPath(i), pool, class, p.Release)...)
	}
	return out
}

// WaitForCluster records that the checks against the cluster wait, and why (the cluster
// clusterName names was not read: the name is not known yet, or the cluster does not exist yet);
// preview says whether this is a preview, whose warning says when they run.
func (p *Plan) WaitForCluster(why string, preview bool) {
	p.clusterWarnings = []field.Warning{waitingWarning(field.NewPath("clusterName"), why, p.ClusterChecks(), preview)}
}

// waitingWarning says which checks wait, and until when; path is the input the reason is about
// (nil when each check names its own).
func waitingWarning(path *field.Path, why string, checks []string, preview bool) field.Warning {
	if !preview {
		return field.Warnf(path, "not checked against the cluster: %s; %s", why, strings.Join(checks, "; "))
	}
	return field.Warnf(path, "%s: at `pulumi up`, before creating anything, the component reads the cluster and checks %s", why, strings.Join(checks, "; "))
}

// laterWarnings say what waits for `up`: the preview shows no discovery tags for the lists it
// could not know, one warning for each, on its path.
func (p *Plan) laterWarnings() []field.Warning {
	var out []field.Warning
	for _, list := range p.known.Later {
		out = append(out, field.Warnf(list, "not known yet (outputs of resources this update creates): this preview shows no discovery tags for them; `pulumi up` tags each one before creating the node classes"))
	}
	return out
}
