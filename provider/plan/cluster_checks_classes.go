package plan

// The node classes checked against the cluster: what their subnet and security group selector
// terms match in the cluster's VPC (Karpenter finds nothing, the class never becomes Ready and
// pods stay Pending, while `pulumi up` is green), and whether their AMI alias has an AMI for the
// cluster's Kubernetes version.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// classField is a field of a node class in findings, saying when the class is the default one
// (the user wrote no nodeClasses).
func (p *Plan) classField(i int, name string) input {
	in := at(field.NewPath("nodeClasses").Index(i).Child(name))
	if i >= p.inputs.userClasses {
		in.of = "the default class"
	}
	return in
}

// selector is one selector term as EC2 filters: what it matches today (filters), and, when it
// selects by the cluster's discovery tag, what it will match once the component has tagged the
// discovery resources (onDiscovery: filters on their ids, without the discovery tag).
type selector struct {
	describe    string
	filters     []Filter
	onDiscovery []Filter
	discovery   bool   // the term selects by the cluster's discovery tag
	byID        bool   // the term names one object by its id: no tag can make it match
	waiting     string // a value the term needs that is not known yet
}

// termFilters turns a term's tags into EC2 filters: `*` matches any value (Karpenter's rule).
func termFilters(tags map[string]string) []Filter {
	var out []Filter
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if tags[k] == "*" {
			out = append(out, Filter{Name: "tag-key", Values: []string{k}})
		} else {
			out = append(out, Filter{Name: "tag:" + k, Values: []string{tags[k]}})
		}
	}
	return out
}

func describeTags(tags map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if tags[k] == "*" {
			parts = append(parts, k+" (any value)")
		} else {
			parts = append(parts, k+"="+tags[k])
		}
	}
	return "carries " + strings.Join(parts, " and ")
}

// tagSelector is a tags term; discovery are the ids the component tags with the discovery tag
// (discoveryField names them), idFilter the EC2 filter that selects by id.
func tagSelector(tags map[string]string, cluster string, discovery []string, discoveryWaiting, idFilter string) selector {
	for k, v := range tags {
		if inputs.IsUnknown(v) {
			return selector{waiting: "the value of tag " + k}
		}
	}
	s := selector{describe: describeTags(tags), filters: termFilters(tags)}
	if v, ok := tags[catalog.DiscoveryTag]; ok && (v == cluster || v == "*") {
		s.discovery = true
		switch {
		case discoveryWaiting != "":
			s.waiting = discoveryWaiting
		case len(discovery) > 0:
			rest := maps.Clone(tags)
			delete(rest, catalog.DiscoveryTag)
			s.onDiscovery = append(termFilters(rest), Filter{Name: idFilter, Values: discovery})
		}
	}
	return s
}

// discoveryIDs are the known ids of discovery.subnetIds or discovery.securityGroupIds, or the
// path of the first one not known yet.
func discoveryIDs(name string, n int, known Known) (ids []string, waiting string) {
	list := field.NewPath("discovery", name)
	if slices.ContainsFunc(known.Later, func(l *field.Path) bool { return l.String() == list.String() }) {
		return nil, list.String()
	}
	for j := range n {
		path := list.Index(j)
		id, ok := known.String(path)
		if !ok {
			return nil, path.String()
		}
		ids = append(ids, id)
	}
	return ids, ""
}

func (p *Plan) subnetSelectors(i int, cluster string, known Known) []selector {
	c := p.Classes[i]
	ids, waiting := discoveryIDs("subnetIds", p.inputs.discoverySubnets, known)
	if len(c.SubnetSelectorTerms) == 0 {
		return []selector{tagSelector(map[string]string{catalog.DiscoveryTag: cluster}, cluster, ids, waiting, "subnet-id")}
	}
	var out []selector
	for j, t := range c.SubnetSelectorTerms {
		if t.Id == nil {
			out = append(out, tagSelector(t.Tags, cluster, ids, waiting, "subnet-id"))
			continue
		}
		path := field.NewPath("nodeClasses").Index(i).Child("subnetSelectorTerms").Index(j).Child("id")
		id, ok := known.String(path)
		if !ok {
			out = append(out, selector{waiting: path.String()})
			continue
		}
		out = append(out, selector{describe: "is " + id, byID: true, filters: []Filter{{Name: "subnet-id", Values: []string{id}}}})
	}
	return out
}

func (p *Plan) securityGroupSelectors(i int, cluster string, known Known) []selector {
	c := p.Classes[i]
	ids, waiting := discoveryIDs("securityGroupIds", p.inputs.discoverySecurityGroups, known)
	if len(c.SecurityGroupSelectorTerms) == 0 {
		return []selector{tagSelector(map[string]string{catalog.DiscoveryTag: cluster}, cluster, ids, waiting, "group-id")}
	}
	var out []selector
	for j, t := range c.SecurityGroupSelectorTerms {
		switch {
		case t.Id != nil:
			path := field.NewPath("nodeClasses").Index(i).Child("securityGroupSelectorTerms").Index(j).Child("id")
			id, ok := known.String(path)
			if !ok {
				out = append(out, selector{waiting: path.String()})
				continue
			}
			out = append(out, selector{describe: "is " + id, byID: true, filters: []Filter{{Name: "group-id", Values: []string{id}}}})
		case t.Name != nil:
			out = append(out, selector{describe: "is named " + *t.Name, filters: []Filter{{Name: "group-name", Values: []string{*t.Name}}}})
		default:
			out = append(out, tagSelector(t.Tags, cluster, ids, waiting, "group-id"))
		}
	}
	return out
}

// describeSelectors says what a list of terms selects, for a finding.
func describeSelectors(sels []selector) string {
	var parts []string
	for _, s := range sels {
		if s.describe != "" {
			parts = append(parts, s.describe)
		}
	}
	return strings.Join(parts, ", or ")
}

// allByID says whether every term names an object by its id (a finding's fix is then the id, not
// a tag).
func allByID(sels []selector) bool {
	return !slices.ContainsFunc(sels, func(s selector) bool { return !s.byID })
}

// usesDiscovery says whether a finding's fix is the discovery tag (the terms select by it).
func usesDiscovery(sels []selector) bool {
	return slices.ContainsFunc(sels, func(s selector) bool { return s.discovery })
}

// matchAll runs every selector's queries, keyed by id, and says whether a term is still waiting.
func matchAll[T any](sels []selector, read func([]Filter) ([]T, error), id func(T) string) (map[string]T, []string, error) {
	found := map[string]T{}
	var waiting []string
	for _, s := range sels {
		if s.waiting != "" {
			waiting = append(waiting, s.waiting)
			continue
		}
		for _, filters := range [][]Filter{s.filters, s.onDiscovery} {
			if filters == nil {
				continue
			}
			items, err := read(filters)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return nil, nil, err
			}
			for _, item := range items {
				found[id(item)] = item
			}
		}
	}
	return found, waiting, nil
}

// checkSubnets: the class's subnets must exist in the cluster's VPC; one zone only is a warning.
func (p *Plan) checkSubnets(i int, c Cluster, r ClusterReader, known Known) (f Findings) {
	terms := p.classField(i, "subnetSelectorTerms")
	sels := p.subnetSelectors(i, c.Name, known)
	found, waiting, err := matchAll(sels, r.Subnets, func(s Subnet) string { return s.ID })
	if err != nil {
		f.warnf(terms, "could not read the subnets it selects (%v): not checked (the check needs ec2:DescribeSubnets)", err)
		return f
	}
	var in, out []string
	zones := map[string]bool{}
	listed := discoveryIDsOf("subnetIds", p.inputs.discoverySubnets, known) // checkDiscoveryIDs says where they are
	for _, id := range slices.Sorted(maps.Keys(found)) {
		s := found[id]
		if s.VpcID != c.VpcID {
			if !slices.Contains(listed, id) {
				out = append(out, fmt.Sprintf("%s (%s)", id, s.VpcID))
			}
			continue
		}
		in = append(in, id)
		zones[s.Zone] = true
	}
	if len(out) > 0 {
		f.errorf(terms, "matches %s, outside cluster %s's VPC %s: instances launched there could not use the cluster's security groups or reach it; change the selector (or the subnets' tags) to match only subnets of %s", strings.Join(out, ", "), c.Name, c.VpcID, c.VpcID)
	}
	switch {
	case len(waiting) > 0 && len(in) == 0:
		f.Waiting = append(f.Waiting, terms.String()+" against the cluster's subnets")
	case len(in) == 0:
		fix := "tag the subnets you want with what the selector asks, or change the selector"
		switch {
		case allByID(sels):
			fix = "no subnet of that id exists where the aws provider looks (its account and region): check the id"
		case usesDiscovery(sels) && len(listed) > 0: // listing them is the value set
			fix = fmt.Sprintf("list subnets of %s in discovery.subnetIds (it lists none: see its findings), tag them %s=%s, or change the selector", c.VpcID, catalog.DiscoveryTag, c.Name)
		case usesDiscovery(sels):
			fix = fmt.Sprintf("list the cluster's private subnets in discovery.subnetIds (the component tags them), tag them %s=%s, or change the selector", catalog.DiscoveryTag, c.Name)
		}
		f.errorf(terms, "no subnet in %s (cluster %s's VPC) %s, so Karpenter would find none: the class would never become Ready and pods would stay Pending; %s", c.VpcID, c.Name, describeSelectors(sels), fix)
	case len(zones) == 1 && len(waiting) == 0:
		f.warnf(terms, "every subnet it matches (%s) is in %s: Karpenter can launch nodes only there (no spread across zones, and no node at all while that zone has no capacity); select subnets in more zones", strings.Join(in, ", "), slices.Collect(maps.Keys(zones))[0])
	}
	return f
}

// checkSecurityGroups: the class's security groups must exist in the cluster's VPC.
func (p *Plan) checkSecurityGroups(i int, c Cluster, r ClusterReader, known Known) (f Findings) {
	terms := p.classField(i, "securityGroupSelectorTerms")
	sels := p.securityGroupSelectors(i, c.Name, known)
	found, waiting, err := matchAll(sels, r.SecurityGroups, func(s SecurityGroup) string { return s.ID })
	if err != nil {
		f.warnf(terms, "could not read the security groups it selects (%v): not checked (the check needs ec2:DescribeSecurityGroups)", err)
		return f
	}
	var in, out []string
	listed := discoveryIDsOf("securityGroupIds", p.inputs.discoverySecurityGroups, known) // checkDiscoveryIDs says where they are
	for _, id := range slices.Sorted(maps.Keys(found)) {
		if g := found[id]; g.VpcID != c.VpcID {
			if !slices.Contains(listed, id) {
				out = append(out, fmt.Sprintf("%s (%s)", id, g.VpcID))
			}
		} else {
			in = append(in, id)
		}
	}
	if len(out) > 0 {
		f.errorf(terms, "matches %s, outside cluster %s's VPC %s: EC2 refuses to launch an instance with a security group of another VPC; change the selector to match only security groups of %s", strings.Join(out, ", "), c.Name, c.VpcID, c.VpcID)
	}
	switch {
	case len(waiting) > 0 && len(in) == 0:
		f.Waiting = append(f.Waiting, terms.String()+" against the cluster's security groups")
	case len(in) == 0:
		fix := "tag the security groups you want with what the selector asks, or change the selector"
		switch {
		case allByID(sels):
			fix = "no security group of that id exists where the aws provider looks (its account and region): check the id"
		case usesDiscovery(sels) && len(listed) > 0: // listing it is the value set
			fix = fmt.Sprintf("list a security group of %s in discovery.securityGroupIds (it lists none: see its findings), tag it %s=%s, or change the selector", c.VpcID, catalog.DiscoveryTag, c.Name)
		case usesDiscovery(sels):
			fix = fmt.Sprintf("list the cluster's node security group in discovery.securityGroupIds (the component tags it), tag it %s=%s, or change the selector", catalog.DiscoveryTag, c.Name)
		}
		f.errorf(terms, "no security group in %s (cluster %s's VPC) %s, so Karpenter would find none: the class would never become Ready and pods would stay Pending; %s", c.VpcID, c.Name, describeSelectors(sels), fix)
	}
	return f
}

// amiAlias is the alias a self-managed class resolves its AMIs through, and the field that sets
// it; "" when it selects AMIs by id, name, tags or SSM parameter.
func (p *Plan) amiAlias(i int) (in input, alias string) {
	c := p.Classes[i]
	for j, t := range c.AmiSelectorTerms {
		if t.Alias != nil {
			in := p.classField(i, "amiSelectorTerms")
			in.path = in.path.Index(j).Child("alias")
			return in, *t.Alias
		}
	}
	if len(c.AmiSelectorTerms) > 0 {
		return input{}, ""
	}
	if !p.Release.Has(catalog.FeatureV1) {
		// Before v1 a class without AMI terms takes its amiFamily's latest optimized AMIs.
		family := catalog.AliasFamilyOf(c.ResolvedAmiFamily(p.DefaultAmiAlias))
		if family == "" {
			return input{}, ""
		}
		if c.AmiFamily != nil {
			return p.classField(i, "amiFamily"), family + "@latest"
		}
		return p.classField(i, "amiAlias"), family + "@latest"
	}
	if c.AmiAlias != nil {
		return p.classField(i, "amiAlias"), *c.AmiAlias
	}
	return p.classField(i, "amiAlias"), p.DefaultAmiAlias
}

// checkClassRole: a class's own role must exist — Karpenter (or EKS Auto Mode) makes the class's
// instance profile for it, and a role that does not exist leaves the class never Ready.
func (p *Plan) checkClassRole(i int, r ClusterReader, known Known) (f Findings) {
	if p.Classes[i].Role == nil {
		return f
	}
	in := p.classField(i, "role")
	role, ok := known.String(in.path)
	if !ok {
		f.Waiting = append(f.Waiting, in.path.String()+" against the account's roles")
		return f
	}
	name := role[strings.LastIndex(role, "/")+1:] // a name, or an ARN (with a path or not)
	read, err := r.Role(name)
	switch {
	case err != nil:
		f.warnf(in, "could not read the IAM role %s (%v): not checked (the check needs iam:GetRole)", name, err)
	case !read.Exists:
		f.errorf(in, "no IAM role %s exists in this account: Karpenter could not make the class's instance profile for it, so the class would never become Ready; create the role (with the node role's managed policies; a role this program creates: pass its name output, so the class waits for it) or leave role unset to use the component's node role", name)
	}
	return f
}

// checkAmi: an alias with no optimized AMI for the cluster's Kubernetes version leaves the class
// without AMIs: it never becomes Ready.
func (p *Plan) checkAmi(i int, c Cluster, r ClusterReader) (f Findings) {
	if p.Release.IsAutoMode() {
		return f // Auto Mode picks its own AMIs
	}
	in, alias := p.amiAlias(i)
	if alias == "" || c.Version == "" {
		return f
	}
	family, version, _ := strings.Cut(alias, "@")
	if why := catalog.CheckAliasKubernetes(family, c.Version); why != "" {
		f.errorf(in, "%s has no AMI for Kubernetes %s, which cluster %s runs: %s, so the class would never become Ready; use %s", alias, c.Version, c.Name, why, p.otherAliases(alias))
		return f
	}
	params := catalog.AmiParameters(family, version, c.Version)
	for _, name := range params {
		exists, err := r.ParameterExists(name)
		if err != nil {
			f.warnf(in, "could not read the SSM parameter %s that %s resolves through (%v): not checked (the check needs ssm:GetParameter)", name, alias, err)
			return f
		}
		if exists {
			return f
		}
	}
	if len(params) > 0 {
		fix := fmt.Sprintf("use %s@latest or a release published for Kubernetes %s", family, c.Version)
		if version == "latest" { // the fix above is the value set
			fix = fmt.Sprintf("use %s, or wait until EKS publishes its %s AMIs for Kubernetes %s in this region", p.otherAliases(alias), family, c.Version)
		}
		f.errorf(in, "%s has no AMI for Kubernetes %s, which cluster %s runs: Karpenter resolves it through the SSM parameter%s %s, and none exists in this region, so the class would never become Ready; %s", alias, c.Version, c.Name, plural(len(params)), strings.Join(params, " and "), fix)
	}
	return f
}

// otherAliases are the aliases a class without AMIs can use instead of alias: the release's
// default and Bottlerocket's latest, but the one set.
func (p *Plan) otherAliases(alias string) string {
	var out []string
	for _, a := range []string{catalog.DefaultAmiAliasOf(p.Release), "bottlerocket@latest"} {
		if a != alias {
			out = append(out, a)
		}
	}
	return strings.Join(out, " or ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// userDiscovery counts the discovery ids the user gave (their values are Inputs, read through
// Known).
func userDiscovery(d *inputs.Discovery) (subnets, securityGroups int) {
	if d == nil {
		return 0, 0
	}
	return len(d.SubnetIds), len(d.SecurityGroupIds)
}
