package inputs

import (
	"fmt"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// NodeClassSpec is the typed form of an EC2NodeClass (karpenter.k8s.aws/v1).
type NodeClassSpec struct {
	Name                       string                      `pulumi:"name"`
	AmiAlias                   *string                     `pulumi:"amiAlias,optional"`
	AmiFamily                  *string                     `pulumi:"amiFamily,optional"`
	AmiSelectorTerms           []AmiSelectorTerm           `pulumi:"amiSelectorTerms,optional"`
	Role                       pulumi.StringPtrInput       `pulumi:"role,optional"`
	InstanceProfile            pulumi.StringPtrInput       `pulumi:"instanceProfile,optional"`
	SubnetSelectorTerms        []SubnetSelectorTerm        `pulumi:"subnetSelectorTerms,optional"`
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `pulumi:"securityGroupSelectorTerms,optional"`
	Tags                       map[string]string           `pulumi:"tags,optional" karpenter:"through"`
	BlockDeviceMappings        []BlockDeviceMapping        `pulumi:"blockDeviceMappings,optional"`
	MetadataOptions            *MetadataOptions            `pulumi:"metadataOptions,optional"`
	Kubelet                    *KubeletConfiguration       `pulumi:"kubelet,optional"`
	UserData                   *string                     `pulumi:"userData,optional" karpenter:"through"`
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

	// EKS Auto Mode NodeClass fields (automode.go, validate_automode.go).
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
	// The default class's AMI alias: AL2023's, and AL2's before the releases that have AL2023.
	al2023 := catalog.FeatureSince[catalog.FeatureAL2023]
	rel, err := catalog.LookupRelease(catalog.DefaultVersion, false)
	if err != nil {
		panic(err) // the catalog's own default is always a release it knows
	}
	older, err := catalog.LookupRelease(fmt.Sprintf("%d.%d.0", al2023.Major, al2023.Minor-1), false)
	if err != nil {
		panic(err)
	}
	a.Describe(&c, "A node class: the AWS side of the nodes. An EC2NodeClass (karpenter.k8s.aws; AMI, subnets, security groups, IAM, disks, kubelet), or with mode `autoMode` an EKS Auto Mode NodeClass (eks.amazonaws.com/v1). Fields marked \"EKS Auto Mode only\" exist only on the latter; the AMI, disk, kubelet, user data, metadata and top-level network interface fields only on the former, and setting one on the other kind fails naming it.")
	a.Describe(&c.Name, "Name of the node class object (a lowercase DNS label, at most 63 characters). In Auto Mode not `default`, EKS's built-in class.")
	a.Describe(&c.AmiAlias, "AMI alias `<family>@<version>`, e.g. `al2023@latest` or `bottlerocket@v1.20.0`; used when no `amiSelectorTerms` are given. "+DefaultWith(catalog.DefaultAmiAliasOf(rel), fmt.Sprintf("`%s` before %d.%d, whose releases lack AL2023", catalog.DefaultAmiAliasOf(older), al2023.Major, al2023.Minor)))
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
	a.Describe(&c.UserData, "Extra user data merged with the AMI family's bootstrap: TOML settings for Bottlerocket; for AL2 and AL2023 a MIME multi-part archive, or plain content Karpenter wraps (a NodeConfig when it is YAML on AL2023, else a shell script); Windows and Custom take it as it is. User data Karpenter could not merge fails at preview.")
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
	a.Describe(&c.EphemeralStorage, fmt.Sprintf("EKS Auto Mode only: the nodes' ephemeral storage volume. Default: %s, %d IOPS, %d MiB/s, the AWS-managed key (see its fields).", catalog.AutoModeEphemeralSize, catalog.AutoModeEphemeralIops, catalog.AutoModeEphemeralThroughput))
	a.Describe(&c.NetworkPolicy, "EKS Auto Mode only: the default network-policy stance of new pods while their policies are configured. "+Default(catalog.AutoModeNetworkPolicy))
	a.Describe(&c.NetworkPolicyEventLogs, "EKS Auto Mode only: log network-policy decisions on the node (no CloudWatch export). "+Default(catalog.AutoModeNetworkPolicyEventLogs))
	a.Describe(&c.SnatPolicy, "EKS Auto Mode only: source NAT of pod traffic leaving the VPC. "+Default(catalog.AutoModeSnatPolicy))
	a.Describe(&c.PodSubnetSelectorTerms, "EKS Auto Mode only: subnets for pod network interfaces (e.g. a secondary CIDR), in the node's Availability Zone; set with `podSecurityGroupSelectorTerms`. The node's primary interface then serves no pods, so pod density is lower. At most 30 terms.")
	a.Describe(&c.PodSecurityGroupSelectorTerms, "EKS Auto Mode only: security groups of the pod network interfaces (shared by every pod of the class); set with `podSubnetSelectorTerms`. At most 30 terms.")
	a.Describe(&c.AdvancedNetworking, "EKS Auto Mode only: proxy, public IPs, pod IP assignment, IPv4 egress and static (EFA) network interfaces.")
	a.Describe(&c.CertificateBundles, "EKS Auto Mode only: custom CA certificates the nodes trust.")
	a.Describe(&c.AdvancedSecurity, "EKS Auto Mode only: FIPS AMIs and kernel lockdown.")
}

// Alias is the AMI alias a class selects (amiAlias or an alias term; validation allows one),
// or nil.
func (c NodeClassSpec) Alias() *string {
	for _, t := range c.AmiSelectorTerms {
		if t.Alias != nil {
			return t.Alias
		}
	}
	return c.AmiAlias
}

// ResolvedAmiFamily is the AMI family the class bootstraps with: its amiFamily, or the family of its
// alias (defaultAlias when it selects none). "" when it cannot be told (AMIs selected by id,
// name or tags without amiFamily, which validation reports on its own).
func (c NodeClassSpec) ResolvedAmiFamily(defaultAlias string) string {
	if c.AmiFamily != nil {
		return *c.AmiFamily
	}
	alias := c.Alias()
	if alias == nil {
		if len(c.AmiSelectorTerms) > 0 {
			return ""
		}
		alias = &defaultAlias
	}
	family, _, _ := strings.Cut(*alias, "@")
	return catalog.AliasFamilies[family]
}

// CapacityReservationSelectorTerm selects capacity reservations by id, or by tags, owner and
// match criteria.
type CapacityReservationSelectorTerm struct {
	Id                    pulumi.StringPtrInput  `pulumi:"id,optional"`
	Tags                  map[string]string      `pulumi:"tags,optional" karpenter:"through"`
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

	a.Describe(&c.TcpEstablishedTimeout, "Timeout for idle TCP connections in the established state (60-432000). "+DefaultWith(432000, "EC2's; `350` on Nitro v6 instance types"))
	a.Describe(&c.UdpStreamTimeout, "Timeout for idle UDP flows that have seen more than one request-response transaction (60-180). "+DefaultWith(180, "EC2's"))
	a.Describe(&c.UdpTimeout, "Timeout for idle UDP flows seen in one direction only or in a single request-response transaction (30-60). "+DefaultWith(30, "EC2's"))
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
	Tags         map[string]string `pulumi:"tags,optional" karpenter:"through"`
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
	Tags map[string]string     `pulumi:"tags,optional" karpenter:"through"`
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
	Tags map[string]string     `pulumi:"tags,optional" karpenter:"through"`
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
	SystemReserved              map[string]string `pulumi:"systemReserved,optional" karpenter:"through"`
	KubeReserved                map[string]string `pulumi:"kubeReserved,optional" karpenter:"through"`
	EvictionHard                map[string]string `pulumi:"evictionHard,optional" karpenter:"through"`
	EvictionSoft                map[string]string `pulumi:"evictionSoft,optional" karpenter:"through"`
	EvictionSoftGracePeriod     map[string]string `pulumi:"evictionSoftGracePeriod,optional" karpenter:"through"`
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
