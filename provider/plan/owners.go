package plan

// The component never writes into an object another owner manages whole: the tags of a subnet
// or security group that a resource of the program makes with its own tags, and
// kube-system/aws-auth's mapRoles when pulumi-eks (or another tool that applies its own document)
// writes it. Such an owner takes the object back with its next update — after a `pulumi refresh`,
// or with its next change — and Karpenter's nodes lose the network their classes select, or the
// identity they join the cluster with, long after the preview that could have said so. So the
// plan refuses, naming the owner and the owner's input that does the same job
// (catalog/owners.go has the owners and their sources).

import (
	"fmt"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// checkSharedObjects refuses the discovery ids whose tags another resource of the program
// manages, and an aws-auth mapping on a cluster whose aws-auth pulumi-eks writes.
func (p *Plan) checkSharedObjects(cluster *Cluster) []error {
	var errs []error
	for _, d := range []struct {
		list  string
		count int
		kind  catalog.IDKind
	}{
		{"subnetIds", p.inputs.discoverySubnets, catalog.SubnetIDs},
		{"securityGroupIds", p.inputs.discoverySecurityGroups, catalog.SecurityGroupIDs},
	} {
		for i := range d.count {
			errs = append(errs, p.checkTagOwner(field.NewPath("discovery", d.list), i, d.kind, cluster))
		}
	}
	return append(errs, p.checkAwsAuthOwner())
}

// checkTagOwner: a discovery id that is an output of a resource managing that object's tags.
// pulumi-eks's security group outputs are its own groups, but a program can pass the group EKS
// made for the cluster through the cluster's outputs too: that one is told apart by its id (the
// cluster's vpcConfig.clusterSecurityGroupId), so while the id or the cluster is not known yet
// the check waits for `up` (still before any child), and it decides by the dependencies only when
// the cluster is never read.
func (p *Plan) checkTagOwner(list *field.Path, i int, kind catalog.IDKind, cluster *Cluster) error {
	path := list.Index(i)
	from := p.known.ResourcesOf(path)
	for _, r := range from {
		input, owned := catalog.TagOwnerOf(r.Type, kind)
		if !owned {
			continue
		}
		if kind == catalog.SecurityGroupIDs && r.Type == catalog.EKSComponentType {
			id, known := p.known.String(path)
			switch {
			case known && cluster != nil && cluster.SecurityGroupID != "":
				if id == cluster.SecurityGroupID {
					return nil // EKS made it for the cluster: no resource of the program tags it
				}
			case slices.ContainsFunc(from, func(r Resource) bool { return r.Type == catalog.EKSClusterType }):
				return nil // it came through the EKS cluster (vpcConfig.clusterSecurityGroupId): EKS made it
			case p.ReadCluster:
				p.waitingOwners = append(p.waitingOwners, fmt.Sprintf("that %s, from %s, is not a security group whose tags %s manages", path, r, r.Name))
				return nil
			}
		}
		cluster, ok := p.known.String(field.NewPath("clusterName"))
		if !ok {
			cluster = "<cluster name>"
		}
		return field.Invalidf(path, "this %s comes from %s, which manages its tags: the %s tag the component would add is removed by %s's next update after a `pulumi refresh`, and then the node classes that select %s find no %s and Karpenter launches nothing; tag it through its owner instead — set %s's %s to include {%q: %q} — and remove it from %s",
			kind, r, catalog.DiscoveryTag, r.Name, catalog.DiscoveryTag, kind, r.Name, input, catalog.DiscoveryTag, cluster, list)
	}
	return nil
}

// checkAwsAuthOwner: an aws-auth mapping on a cluster whose aws-auth another resource of the
// program writes whole (its name's dependencies say who made it).
func (p *Plan) checkAwsAuthOwner() error {
	if p.NodeAccess != inputs.NodeAccessAwsAuth {
		return nil
	}
	for _, r := range p.known.ResourcesOf(field.NewPath("clusterName")) {
		owner, ok := catalog.AwsAuthOwnerOf(r.Type)
		if !ok {
			continue
		}
		return field.Invalidf(field.NewPath("nodeAccess"), "%s, but kube-system/aws-auth belongs to %s, the cluster's maker, which writes its whole mapRoles from its %s: its next update drops the node role the component would add, and Karpenter's nodes can no longer join the cluster; give the nodes access through the cluster instead: switch it to access entries (authenticationMode: \"API\" or \"API_AND_CONFIG_MAP\" on %s; the component then creates an access entry), or create the node role yourself, add it to %s's %s and pass it as nodeRoleArn (the component then leaves node access to the cluster)",
			p.awsAuthReason(), r, owner.Mapping, r.Name, r.Name, owner.Mapping)
	}
	return nil
}

// awsAuthReason says why node access is an aws-auth mapping: the input, or the cluster's mode.
func (p *Plan) awsAuthReason() string {
	if p.inputs.nodeAccess != nil {
		return string(*p.inputs.nodeAccess)
	}
	return fmt.Sprintf("awsAuth (the component follows the cluster's %s mode)", p.accessMode)
}

// awsAuthDocumentOwner is a field manager that owns aws-auth's mapRoles as a whole document of
// its own: one that applies (server-side apply), or one of catalog.DocumentManagers. The
// component's own patch is not one.
func awsAuthDocumentOwner(managers []FieldManager) (FieldManager, bool) {
	for _, m := range managers {
		if m.Manager == catalog.AwsAuthFieldManager || !m.owns("data", "mapRoles") {
			continue
		}
		if m.Operation == "Apply" || slices.Contains(catalog.DocumentManagers, m.Manager) {
			return m, true
		}
	}
	return FieldManager{}, false
}

// FieldManager is one entry of an object's metadata.managedFields.
type FieldManager struct {
	Manager, Operation string
	// Fields is fieldsV1: {"f:data": {"f:mapRoles": {}}, ...}.
	Fields map[string]any
}

// owns says whether the manager owns the field at path (keys without the `f:`).
func (m FieldManager) owns(path ...string) bool {
	fields := m.Fields
	for _, key := range path {
		next, ok := fields["f:"+key].(map[string]any)
		if !ok {
			return false
		}
		fields = next
	}
	return true
}

// CheckAwsAuthManagers refuses an aws-auth mapping when kube-system/aws-auth's mapRoles belongs
// to a field manager that writes its own whole document (read from the live object before any
// child is created): that owner's next apply drops the node role. The component's own patch
// applies as catalog.AwsAuthFieldManager.
func (p *Plan) CheckAwsAuthManagers(managers []FieldManager) error {
	owner, ok := awsAuthDocumentOwner(managers)
	if !ok {
		return nil
	}
	how := "applies its own mapRoles (server-side apply: a Pulumi kubernetes:core/v1:ConfigMap, such as pulumi-eks's in another stack, `kubectl apply --server-side`, Terraform, Argo CD or Flux)"
	if owner.Operation != "Apply" {
		how = "writes its own mapRoles over the live one (`kubectl apply`)"
	}
	return field.Invalidf(field.NewPath("nodeAccess"), "%s, but kube-system/aws-auth's mapRoles belongs to field manager %s, which %s: its next apply drops the node role the component would add, and Karpenter's nodes can no longer join the cluster; switch the cluster to access entries (authenticationMode API_AND_CONFIG_MAP or API: the component then creates an access entry), or add the node role to %s's mapping yourself (the component's nodeRoleMapping output is the entry) and set nodeAccess: none",
		p.awsAuthReason(), owner.Manager, how, owner.Manager)
}

// NodeRoleGroups are the groups of the node role's aws-auth mapRoles entry: those EKS's node
// bootstrap needs, and Windows' kube-proxy group when a class launches Windows nodes with the
// node role.
func (p *Plan) NodeRoleGroups() []string {
	groups := []string{"system:bootstrappers", "system:nodes"}
	if p.WindowsNodes {
		groups = append(groups, "eks:kube-proxy-windows")
	}
	return groups
}

// AccessEntryType is the type of the access entries the component makes for node roles: EKS Auto
// Mode's (EC2), or EC2_LINUX — EC2_WINDOWS when a class launches Windows nodes with the node role.
func (p *Plan) AccessEntryType() string {
	switch {
	case p.Release.IsAutoMode():
		return p.Release.AutoMode.AccessEntryType
	case p.WindowsNodes:
		return "EC2_WINDOWS"
	}
	return "EC2_LINUX"
}

// NodeRoleHasOthersEntry: nodeRoleArn's role has another owner's access entry (CheckCluster), through
// which its nodes join: the component makes none.
func (p *Plan) NodeRoleHasOthersEntry() bool { return p.AccessEntriesOfOthers["nodeRoleArn"] }

// ClassRoleHasOthersEntry: node class i's own role has another owner's access entry.
func (p *Plan) ClassRoleHasOthersEntry(i int) bool {
	return p.AccessEntriesOfOthers[p.classField(i, "role").path.String()]
}

// NodeUsername is the username a node's role maps to in aws-auth.
const NodeUsername = "system:node:{{EC2PrivateDNSName}}"

// awsAuthOwnerWaiting is the check that waits for the cluster's mode when the resource that made
// the cluster writes aws-auth whole ("" when none does).
func (p *Plan) awsAuthOwnerWaiting() string {
	if p.inputs.nodeAccess != nil && *p.inputs.nodeAccess != inputs.NodeAccessAwsAuth {
		return ""
	}
	for _, r := range p.known.ResourcesOf(field.NewPath("clusterName")) {
		if _, ok := catalog.AwsAuthOwnerOf(r.Type); ok {
			return fmt.Sprintf("that node access needs no aws-auth mapping, since %s writes kube-system/aws-auth whole (a CONFIG_MAP cluster is refused)", r)
		}
	}
	return ""
}
