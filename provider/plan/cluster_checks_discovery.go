package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// checkDiscoveryIDs: each subnet and security group the user lists in discovery exists, in the
// cluster's VPC. A finding about one of them belongs at the entry the user wrote, not at every
// node class that selects the discovery tag the component puts on it (the classes' checks leave
// those ids to this one: discoveryIDsOf).
func (p *Plan) checkDiscoveryIDs(c Cluster, r ClusterReader, known Known) (f Findings) {
	for _, l := range []struct {
		list, what, action string
		n                  int
		vpcs               func([]string) (map[string]string, error)
	}{
		{"subnetIds", "subnet", "ec2:DescribeSubnets", p.inputs.discoverySubnets,
			vpcsByID(r.Subnets, "subnet-id", func(s Subnet) (string, string) { return s.ID, s.VpcID })},
		{"securityGroupIds", "security group", "ec2:DescribeSecurityGroups", p.inputs.discoverySecurityGroups,
			vpcsByID(r.SecurityGroups, "group-id", func(g SecurityGroup) (string, string) { return g.ID, g.VpcID })},
	} {
		ids := discoveryIDsOf(l.list, l.n, known)
		if len(ids) == 0 {
			continue
		}
		vpcs, err := l.vpcs(ids)
		if err != nil {
			f.warnClusterf("could not read the %ss of discovery.%s (%v): not checked (the check needs %s)", l.what, l.list, err, l.action)
			continue
		}
		f.add(p.discoveryFindings(l.list, l.what, ids, vpcs, c))
	}
	return f
}

// vpcsByID reads the objects of the given ids through read, filtering on their id filter, and
// gives each id's VPC (idVPC: an object's id and VPC).
func vpcsByID[T any](read func([]Filter) ([]T, error), filter string, idVPC func(T) (string, string)) func([]string) (map[string]string, error) {
	return func(ids []string) (map[string]string, error) {
		found, err := read([]Filter{{Name: filter, Values: ids}})
		vpcs := map[string]string{}
		for _, o := range found {
			id, vpc := idVPC(o)
			vpcs[id] = vpc
		}
		return vpcs, err
	}
}

// discoveryFindings are the findings on the ids of discovery.<list> (what: "subnet", ...), given
// the VPC of each that exists.
func (p *Plan) discoveryFindings(list, what string, ids []string, vpcs map[string]string, c Cluster) (f Findings) {
	for j, id := range ids {
		in := at(field.NewPath("discovery", list).Index(j))
		switch vpc, ok := vpcs[id]; {
		case !ok:
			f.errorf(in, "%s: no %s of that id exists where the aws provider looks (its account and region); check the id", id, what)
		case vpc != c.VpcID:
			f.errorf(in, "%s is in %s, not in cluster %s's VPC %s: nodes Karpenter launched with it could not reach the cluster; list the %ss of %s", id, vpc, c.Name, c.VpcID, what, c.VpcID)
		}
	}
	return f
}

// discoveryIDsOf are the known ids of discovery.<list>, which checkDiscoveryIDs checks.
func discoveryIDsOf(list string, n int, known Known) []string {
	ids, _ := discoveryIDs(list, n, known)
	return ids
}
