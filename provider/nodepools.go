package provider

import (
	"slices"
	"strings"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// NodePool is the typed form of a Karpenter NodePool (karpenter.sh/v1).
type NodePoolSpec struct {
	Name                   string            `pulumi:"name"`
	NodeClassRef           *string           `pulumi:"nodeClassRef,optional"`
	Requirements           []Requirement     `pulumi:"requirements,optional"`
	Labels                 map[string]string `pulumi:"labels,optional"`
	Annotations            map[string]string `pulumi:"annotations,optional"`
	Taints                 []Taint           `pulumi:"taints,optional"`
	StartupTaints          []Taint           `pulumi:"startupTaints,optional"`
	ExpireAfter            *string           `pulumi:"expireAfter,optional"`
	TerminationGracePeriod *string           `pulumi:"terminationGracePeriod,optional"`
	Limits                 map[string]string `pulumi:"limits,optional"`
	Weight                 *int              `pulumi:"weight,optional"`
	Replicas               *int              `pulumi:"replicas,optional"`
	Disruption             *Disruption       `pulumi:"disruption,optional"`
}

func (p *NodePoolSpec) Annotate(a infer.Annotator) {
	a.Describe(&p, "A Karpenter NodePool: which nodes Karpenter may launch for pending pods, and how it disrupts them.")
	a.Describe(&p.Name, "Name of the NodePool object (a lowercase DNS label, at most 63 characters).")
	a.Describe(&p.NodeClassRef, "Name of the node class (an entry of `nodeClasses`) the pool's nodes use. May be omitted when there is exactly one class.")
	a.Describe(&p.Requirements, "Scheduling requirements on node labels (instance type, zone, capacity type, architecture...). Default: linux, amd64, on-demand, instance categories c/m/r, generation > 2.")
	a.Describe(&p.Labels, "Labels applied to every node of the pool.")
	a.Describe(&p.Annotations, "Annotations applied to every node of the pool.")
	a.Describe(&p.Taints, "Taints applied to every node of the pool.")
	a.Describe(&p.StartupTaints, "Taints applied at node start that a daemon is expected to remove (Karpenter does not wait for them when scheduling).")
	a.Describe(&p.ExpireAfter, "How long a node may live before Karpenter replaces it (e.g. `720h`), or `Never`. Default: `720h`.")
	a.Describe(&p.TerminationGracePeriod, "How long Karpenter waits for pods to drain before forcefully terminating a node (e.g. `48h`).")
	a.Describe(&p.Limits, "Resource limits over all nodes of the pool, as Kubernetes quantities (e.g. `{\"cpu\": \"1000\", \"memory\": \"1000Gi\"}`); a static pool (`replicas`) takes only `nodes`.")
	a.Describe(&p.Weight, "Priority of the pool relative to other pools (1-100; higher first). Not supported on a static pool (`replicas`).")
	a.Describe(&p.Replicas, "Makes the pool static: Karpenter keeps exactly this many nodes (at least 0) instead of scaling with pod demand (alpha in Karpenter). A static pool takes no `weight`, no `limits` but `nodes`, and no `disruption.consolidationPolicy`/`consolidateAfter` (Karpenter ignores them). A pool cannot switch between static and dynamic: the API server refuses the update, so create a new pool instead. Karpenter 1.8+.")
	a.Describe(&p.Disruption, "How Karpenter consolidates the pool's nodes. Default: `WhenEmptyOrUnderutilized` after `1m`.")
}

// Requirement is a node selector requirement Karpenter uses to pick instance types.
type Requirement struct {
	Key       string              `pulumi:"key"`
	Operator  RequirementOperator `pulumi:"operator"`
	Values    []string            `pulumi:"values,optional"`
	MinValues *int                `pulumi:"minValues,optional"`
}

func (r *Requirement) Annotate(a infer.Annotator) {
	a.Describe(&r, "A node selector requirement: which values of a node label Karpenter may choose.")

	a.Describe(&r.Key, "Node label key, e.g. `karpenter.sh/capacity-type` or `node.kubernetes.io/instance-type`.")
	a.Describe(&r.Operator, "How the label is matched.")
	a.Describe(&r.Values, "Values for `In`/`NotIn` (at least one for `In`); a single non-negative integer for `Gt`/`Lt`/`Gte`/`Lte`; none for `Exists`/`DoesNotExist`.")
	a.Describe(&r.MinValues, "Minimum number of distinct values Karpenter must be able to choose from (1-50, at most the number of values).")
}

// RequirementOperator is the operator of a Requirement.
type RequirementOperator string

func (RequirementOperator) Values() []infer.EnumValue[RequirementOperator] {
	return []infer.EnumValue[RequirementOperator]{
		{Name: "In", Value: "In", Description: "The label value is one of `values`."},
		{Name: "NotIn", Value: "NotIn", Description: "The label value is none of `values`."},
		{Name: "Exists", Value: "Exists", Description: "The label is present."},
		{Name: "DoesNotExist", Value: "DoesNotExist", Description: "The label is absent."},
		{Name: "Gt", Value: "Gt", Description: "The label value is an integer greater than the single value."},
		{Name: "Lt", Value: "Lt", Description: "The label value is an integer less than the single value."},
		{Name: "Gte", Value: "Gte", Description: "The label value is an integer greater than or equal to the single value (Karpenter v1.9+)."},
		{Name: "Lte", Value: "Lte", Description: "The label value is an integer less than or equal to the single value (Karpenter v1.9+)."},
	}
}

// Taint is a Kubernetes node taint.
type Taint struct {
	Key    string      `pulumi:"key"`
	Value  *string     `pulumi:"value,optional"`
	Effect TaintEffect `pulumi:"effect"`
}

func (t *Taint) Annotate(a infer.Annotator) {
	a.Describe(&t, "A Kubernetes taint on the pool's nodes.")

	a.Describe(&t.Key, "Taint key.")
	a.Describe(&t.Value, "Taint value.")
	a.Describe(&t.Effect, "Taint effect.")
}

// TaintEffect is the effect of a Taint.
type TaintEffect string

func (TaintEffect) Values() []infer.EnumValue[TaintEffect] {
	return []infer.EnumValue[TaintEffect]{
		{Name: "NoSchedule", Value: "NoSchedule", Description: "Pods that do not tolerate the taint are not scheduled."},
		{Name: "PreferNoSchedule", Value: "PreferNoSchedule", Description: "The scheduler tries to avoid the node."},
		{Name: "NoExecute", Value: "NoExecute", Description: "Pods that do not tolerate the taint are evicted."},
	}
}

// Disruption configures consolidation and disruption budgets.
type Disruption struct {
	ConsolidationPolicy *ConsolidationPolicy `pulumi:"consolidationPolicy,optional"`
	ConsolidateAfter    *string              `pulumi:"consolidateAfter,optional"`
	Budgets             []Budget             `pulumi:"budgets,optional"`
}

func (d *Disruption) Annotate(a infer.Annotator) {
	a.Describe(&d, "How Karpenter consolidates a pool's nodes, and how many it may disrupt at once.")

	a.Describe(&d.ConsolidationPolicy, "Which nodes Karpenter may consolidate. Default: `WhenEmptyOrUnderutilized`.")
	a.Describe(&d.ConsolidateAfter, "How long a node must be empty or underutilized before Karpenter consolidates it (e.g. `1m`), or `Never`. Default: `1m`.")
	a.Describe(&d.Budgets, "Limits on how many nodes may be disrupted at once, optionally during a cron schedule.")
}

// ConsolidationPolicy says which nodes Karpenter may consolidate.
type ConsolidationPolicy string

func (ConsolidationPolicy) Values() []infer.EnumValue[ConsolidationPolicy] {
	return []infer.EnumValue[ConsolidationPolicy]{
		{Name: "WhenEmpty", Value: "WhenEmpty", Description: "Only nodes without workload pods."},
		{Name: "WhenEmptyOrUnderutilized", Value: "WhenEmptyOrUnderutilized", Description: "Empty nodes and nodes whose pods fit elsewhere more cheaply."},
		{Name: "Balanced", Value: "Balanced", Description: "Consolidate only when the savings outweigh the disruption (Karpenter v1.14+)."},
	}
}

// Budget limits how many of a pool's nodes may be disrupted at once.
type Budget struct {
	Nodes    *string  `pulumi:"nodes,optional"`
	Schedule *string  `pulumi:"schedule,optional"`
	Duration *string  `pulumi:"duration,optional"`
	Reasons  []string `pulumi:"reasons,optional"`
}

func (b *Budget) Annotate(a infer.Annotator) {
	a.Describe(&b, "A disruption budget: at most `nodes` disrupted at once, always or during a schedule.")

	a.Describe(&b.Nodes, "Maximum nodes disrupted at once: a count (`5`) or a percentage (`10%`). Default: `10%`.")
	a.Describe(&b.Schedule, "Cron schedule (5 fields, UTC, or a macro like `@daily`) when the budget starts being active. Requires `duration`.")
	a.Describe(&b.Duration, "How long the budget stays active after each `schedule` start (e.g. `8h`, `30m`). Requires `schedule`.")
	a.Describe(&b.Reasons, "Disruption reasons the budget applies to: `Empty`, `Drifted`, `Underutilized`, and `Unhealthy` (node repair, Karpenter 1.15+). Default: all.")
}

// NodeClass is the typed form of an EC2NodeClass (karpenter.k8s.aws/v1).
type NodeClassSpec struct {
	Name                       string                      `pulumi:"name"`
	AmiAlias                   *string                     `pulumi:"amiAlias,optional"`
	AmiFamily                  *string                     `pulumi:"amiFamily,optional"`
	AmiSelectorTerms           []AmiSelectorTerm           `pulumi:"amiSelectorTerms,optional"`
	Role                       pulumi.StringPtrInput       `pulumi:"role,optional"`
	InstanceProfile            pulumi.StringPtrInput       `pulumi:"instanceProfile,optional"`
	SubnetSelectorTerms        []SubnetSelectorTerm        `pulumi:"subnetSelectorTerms,optional"`
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `pulumi:"securityGroupSelectorTerms,optional"`
	Tags                       map[string]string           `pulumi:"tags,optional"`
	BlockDeviceMappings        []BlockDeviceMapping        `pulumi:"blockDeviceMappings,optional"`
	MetadataOptions            *MetadataOptions            `pulumi:"metadataOptions,optional"`
	Kubelet                    *KubeletConfiguration       `pulumi:"kubelet,optional"`
	UserData                   *string                     `pulumi:"userData,optional"`
	DetailedMonitoring         *bool                       `pulumi:"detailedMonitoring,optional"`
	AssociatePublicIPAddress   *bool                       `pulumi:"associatePublicIPAddress,optional"`
	InstanceStorePolicy        *string                     `pulumi:"instanceStorePolicy,optional"`
	EnclaveOptions             *EnclaveOptions             `pulumi:"enclaveOptions,optional"`

	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `pulumi:"capacityReservationSelectorTerms,optional"`
	PlacementGroupSelector           *PlacementGroupSelector           `pulumi:"placementGroupSelector,optional"`
	NetworkInterfaces                []NetworkInterface                `pulumi:"networkInterfaces,optional"`
	IpPrefixCount                    *int                              `pulumi:"ipPrefixCount,optional"`
	ConnectionTracking               *ConnectionTracking               `pulumi:"connectionTracking,optional"`
	CpuOptions                       *CpuOptions                       `pulumi:"cpuOptions,optional"`
	Context                          *string                           `pulumi:"context,optional"`

	// EKS Auto Mode NodeClass fields (automode.go).
	EphemeralStorage              *EphemeralStorage              `pulumi:"ephemeralStorage,optional"`
	NetworkPolicy                 *NetworkPolicy                 `pulumi:"networkPolicy,optional"`
	NetworkPolicyEventLogs        *NetworkPolicyEventLogs        `pulumi:"networkPolicyEventLogs,optional"`
	SnatPolicy                    *SnatPolicy                    `pulumi:"snatPolicy,optional"`
	PodSubnetSelectorTerms        []SubnetSelectorTerm           `pulumi:"podSubnetSelectorTerms,optional"`
	PodSecurityGroupSelectorTerms []PodSecurityGroupSelectorTerm `pulumi:"podSecurityGroupSelectorTerms,optional"`
	AdvancedNetworking            *AdvancedNetworking            `pulumi:"advancedNetworking,optional"`
	CertificateBundles            []CertificateBundle            `pulumi:"certificateBundles,optional"`
	AdvancedSecurity              *AdvancedSecurity              `pulumi:"advancedSecurity,optional"`
}

func (c *NodeClassSpec) Annotate(a infer.Annotator) {
	a.Describe(&c, "A node class: the AWS side of the nodes. An EC2NodeClass (karpenter.k8s.aws; AMI, subnets, security groups, IAM, disks, kubelet), or with mode `autoMode` an EKS Auto Mode NodeClass (eks.amazonaws.com/v1). Fields marked \"EKS Auto Mode only\" exist only on the latter; the AMI, disk, kubelet, user data, metadata and top-level network interface fields only on the former, and setting one on the other kind fails naming it.")
	a.Describe(&c.Name, "Name of the node class object (a lowercase DNS label, at most 63 characters). In Auto Mode not `default`, EKS's built-in class.")
	a.Describe(&c.AmiAlias, "AMI alias `<family>@<version>`, e.g. `al2023@latest` or `bottlerocket@v1.20.0`. Default (when no `amiSelectorTerms`): `al2023@latest`.")
	a.Describe(&c.AmiFamily, "AMI family for bootstrapping when selecting AMIs by id, name or tags: `AL2`, `AL2023`, `Bottlerocket`, `Windows2019`, `Windows2022`, `Windows2025` or `Custom`.")
	a.Describe(&c.AmiSelectorTerms, "AMI selector terms (instead of `amiAlias`).")
	a.Describe(&c.Role, "IAM role name (not ARN) for the nodes; Karpenter (or EKS Auto Mode) manages an instance profile for it. Default: the component's node role. Mutually exclusive with `instanceProfile`. Immutable in Auto Mode: a new role needs a new class (and its access entry).")
	a.Describe(&c.InstanceProfile, "Existing instance profile name for the nodes. Mutually exclusive with `role`.")
	a.Describe(&c.SubnetSelectorTerms, "Subnet selector terms. Default: subnets tagged `karpenter.sh/discovery: <clusterName>`.")
	a.Describe(&c.SecurityGroupSelectorTerms, "Security group selector terms. Default: security groups tagged `karpenter.sh/discovery: <clusterName>`.")
	a.Describe(&c.Tags, "Tags Karpenter applies to the EC2 instances, volumes and launch templates it creates.")
	a.Describe(&c.BlockDeviceMappings, "EBS volumes attached to the nodes.")
	a.Describe(&c.MetadataOptions, "Instance metadata service options.")
	a.Describe(&c.Kubelet, "Kubelet configuration for the nodes.")
	a.Describe(&c.UserData, "Extra user data merged with the AMI family's bootstrap.")
	a.Describe(&c.DetailedMonitoring, "Enable detailed CloudWatch monitoring on the instances.")
	a.Describe(&c.AssociatePublicIPAddress, "Associate a public IP address with the instances' primary network interface.")
	a.Describe(&c.InstanceStorePolicy, "How to use local instance store volumes: `RAID0`.")
	a.Describe(&c.EnclaveOptions, "AWS Nitro Enclaves on the instances (Karpenter 1.15+).")
	a.Describe(&c.CapacityReservationSelectorTerms, "Capacity reservations (On-Demand Capacity Reservations and Capacity Blocks) the class may launch into; terms are alternatives (at most 30). Nodes in a reservation have capacity type `reserved`, so a pool must allow it in its `karpenter.sh/capacity-type` requirement. Karpenter 1.3+.")
	a.Describe(&c.PlacementGroupSelector, "The EC2 placement group the instances launch into, by name or id. Karpenter 1.11+.")
	a.Describe(&c.NetworkInterfaces, "The network interfaces of the instances, e.g. EFA devices for HPC and ML; when set, it must include the primary interface (`networkCardIndex` 0, `deviceIndex` 0, `interfaceType` `interface`). At most 150. Karpenter 1.12.1+.")
	a.Describe(&c.IpPrefixCount, "Number of IPv4 prefixes assigned automatically to the primary network interface (at least 0). Karpenter 1.8.6+.")
	a.Describe(&c.ConnectionTracking, "Idle connection tracking timeouts of the network interfaces Karpenter provisions (EFA-only interfaces excluded). Karpenter 1.14+.")
	a.Describe(&c.CpuOptions, "CPU options of the instances. Karpenter 1.14+.")
	a.Describe(&c.Context, "The reserved `Context` field of the EC2 fleet API (for accounts AWS has given a context value).")
	a.Describe(&c.EphemeralStorage, "EKS Auto Mode only: the nodes' ephemeral storage volume. Default: 80Gi, 3000 IOPS, 125 MiB/s, the AWS-managed key.")
	a.Describe(&c.NetworkPolicy, "EKS Auto Mode only: the default network-policy stance of new pods while their policies are configured. Default: `DefaultAllow`.")
	a.Describe(&c.NetworkPolicyEventLogs, "EKS Auto Mode only: log network-policy decisions on the node (no CloudWatch export). Default: `Disabled`.")
	a.Describe(&c.SnatPolicy, "EKS Auto Mode only: source NAT of pod traffic leaving the VPC. Default: `Random`.")
	a.Describe(&c.PodSubnetSelectorTerms, "EKS Auto Mode only: subnets for pod network interfaces (e.g. a secondary CIDR), in the node's Availability Zone; set with `podSecurityGroupSelectorTerms`. The node's primary interface then serves no pods, so pod density is lower. At most 30 terms.")
	a.Describe(&c.PodSecurityGroupSelectorTerms, "EKS Auto Mode only: security groups of the pod network interfaces (shared by every pod of the class); set with `podSubnetSelectorTerms`. At most 30 terms.")
	a.Describe(&c.AdvancedNetworking, "EKS Auto Mode only: proxy, public IPs, pod IP assignment, IPv4 egress and static (EFA) network interfaces.")
	a.Describe(&c.CertificateBundles, "EKS Auto Mode only: custom CA certificates the nodes trust.")
	a.Describe(&c.AdvancedSecurity, "EKS Auto Mode only: FIPS AMIs and kernel lockdown.")
}

// alias is the AMI alias a class selects (amiAlias or an alias term; validation allows one),
// or nil.
func (c NodeClassSpec) alias() *string {
	for _, t := range c.AmiSelectorTerms {
		if t.Alias != nil {
			return t.Alias
		}
	}
	return c.AmiAlias
}

// amiFamily is the AMI family the class bootstraps with: its amiFamily, or the family of its
// alias (defaultAlias when it selects none). "" when it cannot be told (AMIs selected by id,
// name or tags without amiFamily, which validation reports on its own).
func (c NodeClassSpec) amiFamily(defaultAlias string) string {
	if c.AmiFamily != nil {
		return *c.AmiFamily
	}
	alias := c.alias()
	if alias == nil {
		if len(c.AmiSelectorTerms) > 0 {
			return ""
		}
		alias = &defaultAlias
	}
	family, _, _ := strings.Cut(*alias, "@")
	return aliasFamilies[family]
}

// CapacityReservationSelectorTerm selects capacity reservations by id, or by tags, owner and
// match criteria.
type CapacityReservationSelectorTerm struct {
	Id                    pulumi.StringPtrInput  `pulumi:"id,optional"`
	Tags                  map[string]string      `pulumi:"tags,optional"`
	OwnerID               *string                `pulumi:"ownerID,optional"`
	InstanceMatchCriteria *InstanceMatchCriteria `pulumi:"instanceMatchCriteria,optional"`
}

func (t *CapacityReservationSelectorTerm) Annotate(a infer.Annotator) {
	a.Describe(&t, "Selects capacity reservations. Terms are alternatives; the fields of one term must all match. Set `id`, or any of `tags`, `ownerID` and `instanceMatchCriteria` (with `tags` or `instanceMatchCriteria`).")

	a.Describe(&t.Id, "Capacity reservation id (`cr-...`). Stands alone in its term.")
	a.Describe(&t.Tags, "Capacity reservation tags (`*` matches any value; at most 20).")
	a.Describe(&t.OwnerID, "Id of the account that owns the reservation (12 digits). Rendered as `owner` on an EKS Auto Mode NodeClass.")
	a.Describe(&t.InstanceMatchCriteria, "How instances are matched to the reservation. Karpenter 1.8.6+; not in EKS Auto Mode.")
}

// InstanceMatchCriteria is how instances are matched to a capacity reservation.
type InstanceMatchCriteria string

func (InstanceMatchCriteria) Values() []infer.EnumValue[InstanceMatchCriteria] {
	return []infer.EnumValue[InstanceMatchCriteria]{
		{Name: "Open", Value: "open", Description: "Any instance with matching attributes runs in the reservation."},
		{Name: "Targeted", Value: "targeted", Description: "Only instances that target the reservation run in it."},
	}
}

// PlacementGroupSelector names the placement group of a class's instances.
type PlacementGroupSelector struct {
	Name pulumi.StringPtrInput `pulumi:"name,optional"`
	Id   pulumi.StringPtrInput `pulumi:"id,optional"`
}

func (s *PlacementGroupSelector) Annotate(a infer.Annotator) {
	a.Describe(&s, "An EC2 placement group, by name or by id (exactly one).")

	a.Describe(&s.Name, "Placement group name.")
	a.Describe(&s.Id, "Placement group id (`pg-...`).")
}

// NetworkInterface is a network interface attached to a class's instances.
type NetworkInterface struct {
	NetworkCardIndex int                  `pulumi:"networkCardIndex"`
	DeviceIndex      int                  `pulumi:"deviceIndex"`
	InterfaceType    NetworkInterfaceType `pulumi:"interfaceType"`
}

func (n *NetworkInterface) Annotate(a infer.Annotator) {
	a.Describe(&n, "A network interface attached to the instances. Each networkCardIndex/deviceIndex pair at most once; at most one `efa-only` interface per network card.")

	a.Describe(&n.NetworkCardIndex, "Index of the network card the interface attaches to (at least 0).")
	a.Describe(&n.DeviceIndex, "Device index of the attachment (at least 0).")
	a.Describe(&n.InterfaceType, "Interface type.")
}

// NetworkInterfaceType is the type of a NetworkInterface.
type NetworkInterfaceType string

func (NetworkInterfaceType) Values() []infer.EnumValue[NetworkInterfaceType] {
	return []infer.EnumValue[NetworkInterfaceType]{
		{Name: "Interface", Value: "interface", Description: "An ENA interface (with EFA where the instance type supports it)."},
		{Name: "EfaOnly", Value: "efa-only", Description: "An EFA-only interface, without IP addresses."},
	}
}

// ConnectionTracking sets the idle connection tracking timeouts of the instances' interfaces.
type ConnectionTracking struct {
	TcpEstablishedTimeout *int `pulumi:"tcpEstablishedTimeout,optional"`
	UdpStreamTimeout      *int `pulumi:"udpStreamTimeout,optional"`
	UdpTimeout            *int `pulumi:"udpTimeout,optional"`
}

func (c *ConnectionTracking) Annotate(a infer.Annotator) {
	a.Describe(&c, "Idle connection tracking timeouts, in seconds (at least one). Unset ones keep EC2's defaults.")

	a.Describe(&c.TcpEstablishedTimeout, "Timeout for idle TCP connections in the established state (60-432000; EC2's default is 432000, or 350 on Nitro v6 instance types).")
	a.Describe(&c.UdpStreamTimeout, "Timeout for idle UDP flows that have seen more than one request-response transaction (60-180; default 180).")
	a.Describe(&c.UdpTimeout, "Timeout for idle UDP flows seen in one direction only or in a single request-response transaction (30-60; default 30).")
}

// CpuOptions are the CPU options of a class's instances.
type CpuOptions struct {
	NestedVirtualization *NestedVirtualization `pulumi:"nestedVirtualization,optional"`
}

func (o *CpuOptions) Annotate(a infer.Annotator) {
	a.Describe(&o, "CPU options of the instances.")

	a.Describe(&o.NestedVirtualization, "Nested virtualization; when enabled, Karpenter picks only instance types that support it.")
}

// NestedVirtualization turns nested virtualization on or off.
type NestedVirtualization string

func (NestedVirtualization) Values() []infer.EnumValue[NestedVirtualization] {
	return []infer.EnumValue[NestedVirtualization]{
		{Name: "Enabled", Value: "enabled", Description: "Nested virtualization on."},
		{Name: "Disabled", Value: "disabled", Description: "Nested virtualization off."},
	}
}

// EnclaveOptions turns Nitro Enclaves on for a class's instances.
type EnclaveOptions struct {
	Enabled bool `pulumi:"enabled"`
}

func (e *EnclaveOptions) Annotate(a infer.Annotator) {
	a.Describe(&e, "AWS Nitro Enclaves settings of the instances.")

	a.Describe(&e.Enabled, "Launch the instances with Nitro Enclaves enabled.")
}

// AmiSelectorTerm selects AMIs. `alias` stands alone; `id` stands alone; otherwise terms combine name, owner and tags.
type AmiSelectorTerm struct {
	Alias        *string           `pulumi:"alias,optional"`
	Id           *string           `pulumi:"id,optional"`
	Name         *string           `pulumi:"name,optional"`
	Owner        *string           `pulumi:"owner,optional"`
	SsmParameter *string           `pulumi:"ssmParameter,optional"`
	Tags         map[string]string `pulumi:"tags,optional"`
}

func (t *AmiSelectorTerm) Annotate(a infer.Annotator) {
	a.Describe(&t, "Selects AMIs. Terms are alternatives; the fields of one term must all match.")

	a.Describe(&t.Alias, "AMI alias `<family>@<version>`; must be the only term.")
	a.Describe(&t.Id, "AMI id (`ami-...`).")
	a.Describe(&t.Name, "AMI name (wildcards allowed).")
	a.Describe(&t.Owner, "AMI owner account id or alias (`self`, `amazon`).")
	a.Describe(&t.SsmParameter, "SSM parameter holding an AMI id.")
	a.Describe(&t.Tags, "AMI tags.")
}

// SubnetSelectorTerm selects subnets by id or by tags.
type SubnetSelectorTerm struct {
	Id   pulumi.StringPtrInput `pulumi:"id,optional"`
	Tags map[string]string     `pulumi:"tags,optional"`
}

func (t *SubnetSelectorTerm) Annotate(a infer.Annotator) {
	a.Describe(&t, "Selects subnets by id or by tags. Terms are alternatives.")

	a.Describe(&t.Id, "Subnet id (`subnet-...`). Mutually exclusive with `tags` in the same term.")
	a.Describe(&t.Tags, "Subnet tags (`*` matches any value).")
}

// SecurityGroupSelectorTerm selects security groups by id, name or tags.
type SecurityGroupSelectorTerm struct {
	Id   pulumi.StringPtrInput `pulumi:"id,optional"`
	Name *string               `pulumi:"name,optional"`
	Tags map[string]string     `pulumi:"tags,optional"`
}

func (t *SecurityGroupSelectorTerm) Annotate(a infer.Annotator) {
	a.Describe(&t, "Selects security groups by id, name or tags. Terms are alternatives.")

	a.Describe(&t.Id, "Security group id (`sg-...`). Stands alone in its term.")
	a.Describe(&t.Name, "Security group name. Stands alone in its term.")
	a.Describe(&t.Tags, "Security group tags (`*` matches any value).")
}

// BlockDeviceMapping is an EBS volume attached to the nodes.
type BlockDeviceMapping struct {
	DeviceName *string      `pulumi:"deviceName,optional"`
	RootVolume *bool        `pulumi:"rootVolume,optional"`
	Ebs        *BlockDevice `pulumi:"ebs,optional"`
}

func (m *BlockDeviceMapping) Annotate(a infer.Annotator) {
	a.Describe(&m, "An EBS volume attached to the nodes.")

	a.Describe(&m.DeviceName, "Device name, e.g. `/dev/xvda`.")
	a.Describe(&m.RootVolume, "Whether this is the root volume (at most one mapping).")
	a.Describe(&m.Ebs, "The EBS volume.")
}

// BlockDevice describes an EBS volume.
type BlockDevice struct {
	VolumeSize               *string `pulumi:"volumeSize,optional"`
	VolumeType               *string `pulumi:"volumeType,optional"`
	Iops                     *int    `pulumi:"iops,optional"`
	Throughput               *int    `pulumi:"throughput,optional"`
	Encrypted                *bool   `pulumi:"encrypted,optional"`
	KmsKeyId                 *string `pulumi:"kmsKeyId,optional"`
	DeleteOnTermination      *bool   `pulumi:"deleteOnTermination,optional"`
	SnapshotId               *string `pulumi:"snapshotId,optional"`
	VolumeInitializationRate *int    `pulumi:"volumeInitializationRate,optional"`
}

func (d *BlockDevice) Annotate(a infer.Annotator) {
	a.Describe(&d, "EBS volume settings.")

	a.Describe(&d.VolumeSize, "Volume size as a quantity, e.g. `100Gi`. Required unless `snapshotId` is set.")
	a.Describe(&d.VolumeType, "Volume type: `gp3`, `gp2`, `io1`, `io2`, `sc1`, `st1` or `standard`.")
	a.Describe(&d.Iops, "Provisioned IOPS (io1, io2, gp3).")
	a.Describe(&d.Throughput, "Throughput in MiB/s (gp3).")
	a.Describe(&d.Encrypted, "Encrypt the volume.")
	a.Describe(&d.KmsKeyId, "KMS key for encryption.")
	a.Describe(&d.DeleteOnTermination, "Delete the volume when the instance terminates.")
	a.Describe(&d.SnapshotId, "Snapshot to create the volume from.")
	a.Describe(&d.VolumeInitializationRate, "Rate in MiB/s (100-300) at which the snapshot's blocks are downloaded to the volume (EBS Provisioned Rate for Volume Initialization); requires `snapshotId`. Karpenter 1.6.3+.")
}

// MetadataOptions configures the instance metadata service.
type MetadataOptions struct {
	HttpEndpoint            *string `pulumi:"httpEndpoint,optional"`
	HttpProtocolIPv6        *string `pulumi:"httpProtocolIPv6,optional"`
	HttpPutResponseHopLimit *int    `pulumi:"httpPutResponseHopLimit,optional"`
	HttpTokens              *string `pulumi:"httpTokens,optional"`
}

func (m *MetadataOptions) Annotate(a infer.Annotator) {
	a.Describe(&m, "Instance metadata service (IMDS) settings for the nodes.")

	a.Describe(&m.HttpEndpoint, "`enabled` or `disabled`.")
	a.Describe(&m.HttpProtocolIPv6, "`enabled` or `disabled`.")
	a.Describe(&m.HttpPutResponseHopLimit, "Hop limit for PUT responses (1-64).")
	a.Describe(&m.HttpTokens, "`required` (IMDSv2 only) or `optional`.")
}

// KubeletConfiguration configures the kubelet on the nodes.
type KubeletConfiguration struct {
	MaxPods                     *int              `pulumi:"maxPods,optional"`
	PodsPerCore                 *int              `pulumi:"podsPerCore,optional"`
	SystemReserved              map[string]string `pulumi:"systemReserved,optional"`
	KubeReserved                map[string]string `pulumi:"kubeReserved,optional"`
	EvictionHard                map[string]string `pulumi:"evictionHard,optional"`
	EvictionSoft                map[string]string `pulumi:"evictionSoft,optional"`
	EvictionSoftGracePeriod     map[string]string `pulumi:"evictionSoftGracePeriod,optional"`
	EvictionMaxPodGracePeriod   *int              `pulumi:"evictionMaxPodGracePeriod,optional"`
	ImageGCHighThresholdPercent *int              `pulumi:"imageGCHighThresholdPercent,optional"`
	ImageGCLowThresholdPercent  *int              `pulumi:"imageGCLowThresholdPercent,optional"`
	CpuCFSQuota                 *bool             `pulumi:"cpuCFSQuota,optional"`
	ClusterDNS                  []string          `pulumi:"clusterDNS,optional"`
	// AdditionalSettings are upstream KubeletConfiguration fields without a typed input: from
	// 1.15 the EC2NodeClass kubelet is free-form and Karpenter validates it itself.
	AdditionalSettings map[string]any `pulumi:"additionalSettings,optional"`
}

func (k *KubeletConfiguration) Annotate(a infer.Annotator) {
	a.Describe(&k, "Kubelet settings for the nodes (on the EC2NodeClass from Karpenter 1.0; on the NodePool or Provisioner before).")

	a.Describe(&k.MaxPods, "Maximum pods per node.")
	a.Describe(&k.PodsPerCore, "Maximum pods per CPU core.")
	a.Describe(&k.SystemReserved, "Resources reserved for the OS (`cpu`, `memory`, `ephemeral-storage`, `pid`).")
	a.Describe(&k.KubeReserved, "Resources reserved for Kubernetes daemons (`cpu`, `memory`, `ephemeral-storage`, `pid`).")
	a.Describe(&k.EvictionHard, "Hard eviction thresholds, e.g. `{\"memory.available\": \"5%\"}`.")
	a.Describe(&k.EvictionSoft, "Soft eviction thresholds; each needs a grace period in `evictionSoftGracePeriod`.")
	a.Describe(&k.EvictionSoftGracePeriod, "Grace periods for the soft eviction thresholds, e.g. `{\"memory.available\": \"1m\"}`.")
	a.Describe(&k.EvictionMaxPodGracePeriod, "Maximum pod termination grace period (seconds) for soft evictions.")
	a.Describe(&k.ImageGCHighThresholdPercent, "Disk usage percentage that triggers image garbage collection (greater than the low threshold).")
	a.Describe(&k.ImageGCLowThresholdPercent, "Disk usage percentage image garbage collection frees down to.")
	a.Describe(&k.CpuCFSQuota, "Enforce CPU limits with CFS quota.")
	a.Describe(&k.ClusterDNS, "Cluster DNS server IPs.")
	a.Describe(&k.AdditionalSettings, "Any other kubelet setting, by its upstream `KubeletConfiguration` (kubelet.config.k8s.io/v1beta1) name, e.g. `{\"containerLogMaxSize\": \"50Mi\", \"shutdownGracePeriod\": \"30s\"}`. Merged into the EC2NodeClass `kubelet`, which is free-form from Karpenter 1.15 (Karpenter reports invalid settings in the class's `ValidationSucceeded` condition). Settings that have a typed field here must use it; `registerWithTaints` is Karpenter's. Only the AL2023 AMI family applies them (Karpenter rejects a class of another family that sets any). Karpenter 1.15+.")
}

// defaultRequirements are the default pool's requirements (and any pool that sets none):
// Linux on amd64, on-demand, from the general-purpose, compute and memory families of
// generation 3 and later.
func defaultRequirements() []Requirement {
	return []Requirement{
		{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
		{Key: "kubernetes.io/os", Operator: "In", Values: []string{"linux"}},
		{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}},
		{Key: "karpenter.k8s.aws/instance-category", Operator: "In", Values: []string{"c", "m", "r"}},
		{Key: "karpenter.k8s.aws/instance-generation", Operator: "Gt", Values: []string{"2"}},
	}
}

// createCustomResources creates the node classes and pools. They wait for both releases (the
// CRDs and the controller that reconciles them) and for the node IAM (nodes must be able to
// join), so a destroy deletes them first, while Karpenter still runs with its permissions
// and can drain and terminate the nodes they own.
func (b *builder) createCustomResources() error {
	deps := slices.Clone(b.nodeDeps)
	if b.release != nil {
		deps = append(deps, b.release)
	}
	if b.crdRelease != nil {
		deps = append(deps, b.crdRelease)
	}
	r := b.plan.release
	classes := map[string]NodeClassSpec{}
	for _, c := range b.plan.classes {
		classes[c.Name] = c
		if _, err := b.newCustomResource("-nodeclass-"+c.Name, r.nodeClass, c.Name, b.nodeClassSpec(c), deps); err != nil {
			return err
		}
	}
	for _, p := range b.plan.pools {
		spec := b.nodePoolSpec(p, classes[deref(p.NodeClassRef, "")])
		if _, err := b.newCustomResource("-nodepool-"+p.Name, r.nodePool, p.Name, spec, deps); err != nil {
			return err
		}
	}
	return nil
}

// newCustomResource registers a NodePool, EC2NodeClass, Provisioner or AWSNodeTemplate. The
// v1 kinds alias their v1beta1 types: the API server serves one object under both versions,
// so an upgrade across the boundary must update it in place — replacing it would delete the
// live object (and drain its nodes) after creating its successor.
func (b *builder) newCustomResource(suffix string, kind apiKind, name string, spec map[string]any, deps []pulumi.Resource) (*child, error) {
	opts := []pulumi.ResourceOption{pulumi.DependsOn(deps)}
	for _, older := range previousAPIVersions[kind] {
		opts = append(opts, pulumi.Aliases([]pulumi.Alias{{Type: pulumi.String(older.token())}}))
	}
	return b.newChild(kind.token(), suffix, pulumi.Map{
		"apiVersion": pulumi.String(kind.apiVersion),
		"kind":       pulumi.String(kind.kind),
		"metadata":   pulumi.Map{"name": pulumi.String(name)},
		"spec":       pulumi.ToMap(spec),
	}, opts...)
}

// previousAPIVersions are the earlier versions of the same kinds (same objects on the server).
var previousAPIVersions = map[apiKind][]apiKind{
	{"karpenter.sh/v1", "NodePool"}:          {{"karpenter.sh/v1beta1", "NodePool"}},
	{"karpenter.k8s.aws/v1", "EC2NodeClass"}: {{"karpenter.k8s.aws/v1beta1", "EC2NodeClass"}},
}
