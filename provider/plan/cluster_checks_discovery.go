package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// checkDiscoveryIDs: each subnet and security group the user lists in discovery exists, in the
// cluster's VPC. A finding about one of them belongs at the entry the user wrote, not at every
// node class that selects the discovery tag the component puts on it (the classes' checks leave
// those ids to this one: discoveryIDsOf).
func (p *Plan) checkDiscoveryIDs(c Cluster, r ClusterReader, known Known) (f Findings) {
	subnets, _ := discoveryIDs("subnetIds", p.inputs.discoverySubnets, known)
	if len(subnets) > 0 {
		found, err := r.Subnets([]Filter{{Name: "subnet-id", Values: subnets}})
		if err != nil {
			f.warnClusterf("could not read the subnets of discovery.subnetIds (%v): not checked (the check needs ec2:DescribeSubnets)", err)
		} else {
			vpcs := map[string]string{}
			for _, s := range found {
				vpcs[s.ID] = s.VpcID
			}
			f.add(p.discoveryFindings("subnetIds", "subnet", subnets, vpcs, c))
		}
	}
	groups, _ := discoveryIDs("securityGroupIds", p.inputs.discoverySecurityGroups, known)
	if len(groups) > 0 {
		found, err := r.SecurityGroups([]Filter{{Name: "group-id", Values: groups}})
		if err != nil {
			f.warnClusterf("could not read the security groups of discovery.securityGroupIds (%v): not checked (the check needs ec2:DescribeSecurityGroups)", err)
		} else {
			vpcs := map[string]string{}
			for _, g := range found {
				vpcs[g.ID] = g.VpcID
			}
			f.add(p.discoveryFindings("securityGroupIds", "security group", groups, vpcs, c))
		}
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
