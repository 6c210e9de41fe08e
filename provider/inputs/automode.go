package inputs

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// EphemeralStorage is an Auto Mode NodeClass's node volume for ephemeral data.
type EphemeralStorage struct {
	Size       *string `pulumi:"size,optional"`
	Iops       *int    `pulumi:"iops,optional"`
	Throughput *int    `pulumi:"throughput,optional"`
	KmsKeyID   *string `pulumi:"kmsKeyID,optional"`
}

func (e *EphemeralStorage) Annotate(a infer.Annotator) {
	a.Describe(&e, "The nodes' ephemeral storage volume (EKS Auto Mode). When `size` is below the instance's local NVMe capacity, Auto Mode adds a 20 GiB EBS volume and uses the NVMe for ephemeral data.")
	a.Describe(&e.Size, "Volume size: 1-59000Gi, 1-64000G, 1-58Ti or 1-64T. "+Default(catalog.AutoModeEphemeralSize))
	a.Describe(&e.Iops, "Provisioned IOPS (3000-16000). "+Default(catalog.AutoModeEphemeralIops))
	a.Describe(&e.Throughput, "Throughput in MiB/s (125-1000). "+Default(catalog.AutoModeEphemeralThroughput))
	a.Describe(&e.KmsKeyID, "Symmetric KMS key (id, ARN, alias name or alias ARN) encrypting the root and data volumes; its key policy must let the cluster role use it and create grants. Default: the AWS-managed EBS key.")
}

// AdvancedNetworking is an Auto Mode NodeClass's node networking.
type AdvancedNetworking struct {
	HttpsProxy               *string                    `pulumi:"httpsProxy,optional"`
	NoProxy                  []string                   `pulumi:"noProxy,optional"`
	AssociatePublicIPAddress *bool                      `pulumi:"associatePublicIPAddress,optional"`
	Ipv4PrefixSize           *Ipv4PrefixSize            `pulumi:"ipv4PrefixSize,optional"`
	EnableV4Egress           *bool                      `pulumi:"enableV4Egress,optional"`
	NetworkInterfaces        []AutoModeNetworkInterface `pulumi:"networkInterfaces,optional"`
}

func (n *AdvancedNetworking) Annotate(a infer.Annotator) {
	a.Describe(&n, "Node networking of an EKS Auto Mode NodeClass.")
	a.Describe(&n.HttpsProxy, "Forward proxy for the node, a URL with a port (at most 255 characters; IPv6 as `[addr]:port`). Usually needs `certificateBundles`.")
	a.Describe(&n.NoProxy, "Destinations that bypass the proxy (at most 50, each at most 255 characters), e.g. `localhost`, `169.254.169.254`, `.internal`, `.eks.amazonaws.com` and the VPC endpoints.")
	a.Describe(&n.AssociatePublicIPAddress, "Whether nodes get a public IP address. Default: the subnet's setting. Not with more than one network interface.")
	a.Describe(&n.Ipv4PrefixSize, "How pod IPs are assigned. "+DefaultWith("Auto", "EKS Auto Mode's"))
	a.Describe(&n.EnableV4Egress, "IPv6 clusters only: `false` turns off IPv4 egress from IPv6 pods.")
	a.Describe(&n.NetworkInterfaces, "Static network interfaces, for EFA. Card 0 / device 0 must be an `interface`. With static interfaces Auto Mode adds no IP, prefix or ENI after launch: reserve pod IPs on the primary interface with `secondaryIPv4Count` or `secondaryIPv4PrefixCount`. Not with IPv6.")
}

// Ipv4PrefixSize is how Auto Mode assigns pod IPv4 addresses.
type Ipv4PrefixSize string

func (Ipv4PrefixSize) Values() []infer.EnumValue[Ipv4PrefixSize] {
	return []infer.EnumValue[Ipv4PrefixSize]{
		{Name: "Auto", Value: "Auto", Description: "Prefix delegation (/28 prefixes), falling back to secondary IPs."},
		{Name: "Secondary", Value: "32", Description: "Secondary IP mode: one IP per pod (recommended for pod-sparse nodes such as GPU nodes)."},
	}
}

// AutoModeNetworkInterface is a static network interface of an Auto Mode NodeClass.
type AutoModeNetworkInterface struct {
	NetworkCardIndex         int                  `pulumi:"networkCardIndex"`
	DeviceIndex              int                  `pulumi:"deviceIndex"`
	InterfaceType            NetworkInterfaceType `pulumi:"interfaceType"`
	SecondaryIPv4Count       *int                 `pulumi:"secondaryIPv4Count,optional"`
	SecondaryIPv4PrefixCount *int                 `pulumi:"secondaryIPv4PrefixCount,optional"`
}

func (n *AutoModeNetworkInterface) Annotate(a infer.Annotator) {
	a.Describe(&n, "A static network interface of EKS Auto Mode nodes. Each networkCardIndex/deviceIndex pair at most once.")
	a.Describe(&n.NetworkCardIndex, "Index of the network card (at least 0).")
	a.Describe(&n.DeviceIndex, "Device index of the attachment (at least 0).")
	a.Describe(&n.InterfaceType, "Interface type.")
	a.Describe(&n.SecondaryIPv4Count, "Secondary IPv4 addresses reserved for pods (one per unit). Only on network card 0, not on `efa-only`, not with `secondaryIPv4PrefixCount`.")
	a.Describe(&n.SecondaryIPv4PrefixCount, "IPv4 /28 prefixes reserved for pods. Only on network card 0, not on `efa-only`, not with `secondaryIPv4Count`.")
}

// PodSecurityGroupSelectorTerm selects the security groups of pod network interfaces.
type PodSecurityGroupSelectorTerm struct {
	Id   pulumi.StringPtrInput `pulumi:"id,optional"`
	Tags map[string]string     `pulumi:"tags,optional" karpenter:"through"`
}

func (t *PodSecurityGroupSelectorTerm) Annotate(a infer.Annotator) {
	a.Describe(&t, "Selects the security groups of pod network interfaces by id or by tags. Terms are alternatives.")
	a.Describe(&t.Id, "Security group id (`sg-...`). Mutually exclusive with `tags` in the same term.")
	a.Describe(&t.Tags, "Security group tags (`*` matches any value).")
}

// CertificateBundle is a CA bundle Auto Mode nodes trust.
type CertificateBundle struct {
	Name string `pulumi:"name"`
	Data string `pulumi:"data"`
}

func (c *CertificateBundle) Annotate(a infer.Annotator) {
	a.Describe(&c, "Custom CA certificates the nodes trust (for proxies and enterprise PKI).")
	a.Describe(&c.Name, "Name of the bundle.")
	a.Describe(&c.Data, "The PEM bundle, base64-encoded.")
}

// AdvancedSecurity is an Auto Mode NodeClass's node hardening.
type AdvancedSecurity struct {
	Fips           *bool           `pulumi:"fips,optional"`
	KernelLockdown *KernelLockdown `pulumi:"kernelLockdown,optional"`
}

func (s *AdvancedSecurity) Annotate(a infer.Annotator) {
	a.Describe(&s, "Node hardening of an EKS Auto Mode NodeClass.")
	a.Describe(&s.Fips, "Use FIPS 140-validated AMIs (US East/West, GovCloud (US) and Canada Regions). "+DefaultWith(false, "EKS Auto Mode's"))
	a.Describe(&s.KernelLockdown, "Kernel lockdown mode.")
}

// KernelLockdown is the kernel lockdown mode of Auto Mode nodes.
type KernelLockdown string

func (KernelLockdown) Values() []infer.EnumValue[KernelLockdown] {
	return []infer.EnumValue[KernelLockdown]{
		{Name: "Integrity", Value: "integrity", Description: "Block unsigned kernel modules and writes to kernel memory."},
		{Name: "None", Value: "none", Description: "No lockdown."},
	}
}

// NetworkPolicy is an Auto Mode NodeClass's default network-policy stance.
type NetworkPolicy string

func (NetworkPolicy) Values() []infer.EnumValue[NetworkPolicy] {
	return []infer.EnumValue[NetworkPolicy]{
		{Name: "DefaultAllow", Value: "DefaultAllow", Description: "New pods accept traffic until their policies are in place."},
		{Name: "DefaultDeny", Value: "DefaultDeny", Description: "New pods accept no traffic until their policies are in place."},
	}
}

// NetworkPolicyEventLogs says whether Auto Mode nodes log network-policy decisions.
type NetworkPolicyEventLogs string

func (NetworkPolicyEventLogs) Values() []infer.EnumValue[NetworkPolicyEventLogs] {
	return []infer.EnumValue[NetworkPolicyEventLogs]{
		{Name: "Enabled", Value: "Enabled", Description: "Log network-policy decisions on the node."},
		{Name: "Disabled", Value: "Disabled", Description: "No network-policy logs."},
	}
}

// SnatPolicy is how Auto Mode nodes translate pod source addresses.
type SnatPolicy string

func (SnatPolicy) Values() []infer.EnumValue[SnatPolicy] {
	return []infer.EnumValue[SnatPolicy]{
		{Name: "Random", Value: "Random", Description: "SNAT with random ports (`--random-fully`)."},
		{Name: "Disabled", Value: "Disabled", Description: "No SNAT: pods are reachable from VPNs and peered networks, and reach the internet only through a NAT gateway."},
	}
}
