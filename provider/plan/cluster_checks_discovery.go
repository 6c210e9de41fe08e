package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// checkDiscoveryIDs: each subnet and security group the user lists in discovery exists, in the
// cluster's VPC. A finding about one of them belongs at the entry the user wrote, not at every
// node class that selects the discovery tag the component puts on it (the classes' checks leave
// those ids to this one: discoveryIDsOf).
func (p *Plan) checkDiscoveryIDs(c Cluster, r ClusterReader, known Known) (f Findings) {
	subnetVPCs := func(ids []string) (map[string]string, error) {
		found, err := r.Subnets([]Filter{{Name: "subnet-id", Values: ids}})
		vpcs := map[string]string{}
		for _, s := range found {
			vpcs[s.ID] = s.VpcID
		}
		return vpcs, err
	}
	groupVPCs := func(ids []string) (map[string]string, error) {
		found, err := r.SecurityGroups([]Filter{{Name: "group-id", Values: ids}})
		vpcs := map[string]string{}
		for _, g := range found {
			vpcs[g.ID] = g.VpcID
		}
		return vpcs, err
	}
	for _, l := range []struct {
		list, what, action string
		n                  int
		vpcs               func([]string) (map[string]string, error)
	}{
		{"subnetIds", "subnet", "ec2:DescribeSubnets", p.inputs.discoverySubnets, subnetVPCs},
		{"securityGroupIds", "security group", "ec2:DescribeSecurityGroups", p.inputs.discoverySecurityGroups, groupVPCs},
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
