package provider

// EKS Auto Mode (mode: autoMode): AWS runs Karpenter, so the component installs no controller,
// no CRDs, no controller IAM and no interruption queue. It creates what Auto Mode leaves to
// the user — the node role, its EC2 access entry with the AmazonEKSAutoNodePolicy association
// (without it, nodes launch and never join, while the pool and class report Ready) — and the
// typed NodeClasses (eks.amazonaws.com/v1) and NodePools. The rules are data in the catalog
// (versions.go, autoModeGeneration); this file holds the Auto Mode node class fields, the
// checks that keep self-managed inputs out, and the rendering.

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Mode says who runs Karpenter.
type Mode string

const (
	ModeSelfManaged Mode = "selfManaged"
	ModeAutoMode    Mode = "autoMode"
)

func (Mode) Values() []infer.EnumValue[Mode] {
	return []infer.EnumValue[Mode]{
		{Name: "SelfManaged", Value: ModeSelfManaged, Description: "The component installs and runs Karpenter: controller and node IAM, interruption queue, Helm releases, NodePools and EC2NodeClasses."},
		{Name: "AutoMode", Value: ModeAutoMode, Description: "EKS Auto Mode runs Karpenter: the component creates the node role with its EC2 access entry, and Auto Mode NodeClasses (eks.amazonaws.com/v1) and NodePools."},
	}
}

// releaseForMode resolves the release a mode's custom resources are rendered for: the Karpenter
// version (self-managed), or Auto Mode, where a version makes no sense.
func releaseForMode(mode *Mode, version *string, allowUnverified *bool) (release, error) {
	switch m := deref(mode, ModeSelfManaged); m {
	case ModeSelfManaged:
		return lookupRelease(deref(version, defaultVersion), deref(allowUnverified, false))
	case ModeAutoMode:
		var errs []error
		if version != nil {
			errs = append(errs, errors.New("version: not used with mode autoMode (EKS runs and upgrades Karpenter; Auto Mode objects have one API)"))
		}
		if allowUnverified != nil {
			errs = append(errs, errors.New("allowUnverifiedVersion: not used with mode autoMode (there is no Karpenter version to choose)"))
		}
		return autoModeRelease(), errors.Join(errs...)
	default:
		return release{}, checkEnum("mode", string(m), enumValues[Mode]())
	}
}

// selfManagedInputs are the component inputs that configure the Karpenter install itself. In
// Auto Mode EKS runs Karpenter, so each is refused by name rather than ignored.
var selfManagedInputs = []struct {
	field string
	set   func(KarpenterArgs) bool
	why   string
}{
	{"kubernetesVersion", func(a KarpenterArgs) bool { return a.KubernetesVersion != nil }, "it checks the compatibility matrix of self-managed Karpenter"},
	{"clusterEndpoint", func(a KarpenterArgs) bool { return a.ClusterEndpoint != nil }, "it configures the controller"},
	{"oidcProviderArn", func(a KarpenterArgs) bool { return a.OidcProviderArn != nil }, "it is for the controller role's IRSA trust"},
	{"namespace", func(a KarpenterArgs) bool { return a.Namespace != nil }, "there is no release"},
	{"serviceAccountName", func(a KarpenterArgs) bool { return a.ServiceAccountName != nil }, "there is no controller service account"},
	{"controllerIdentity", func(a KarpenterArgs) bool { return a.ControllerIdentity != nil }, "EKS gives its controller credentials"},
	{"createPodIdentityAgent", func(a KarpenterArgs) bool { return a.CreatePodIdentityAgent != nil }, "it is for the controller's Pod Identity"},
	{"controllerRoleArn", func(a KarpenterArgs) bool { return a.ControllerRoleArn != nil }, "EKS's controller uses the cluster role"},
	{"controllerPolicyStatements", func(a KarpenterArgs) bool { return len(a.ControllerPolicyStatements) > 0 }, "EKS's controller uses the cluster role; give it extra permissions there (e.g. for NodeClass tags)"},
	{"controllerPolicyArns", func(a KarpenterArgs) bool { return len(a.ControllerPolicyArns) > 0 }, "EKS's controller uses the cluster role"},
	{"interruptionHandling", func(a KarpenterArgs) bool { return a.InterruptionHandling != nil }, "EKS handles interruptions itself"},
	{"chartRepository", func(a KarpenterArgs) bool { return a.ChartRepository != nil }, "nothing is installed with Helm"},
	{"repositoryUsername", func(a KarpenterArgs) bool { return a.RepositoryUsername != nil }, "nothing is installed with Helm"},
	{"repositoryPassword", func(a KarpenterArgs) bool { return a.RepositoryPassword != nil }, "nothing is installed with Helm"},
	{"controllerImageRepository", func(a KarpenterArgs) bool { return a.ControllerImageRepository != nil }, "EKS runs the controller"},
	{"installCrds", func(a KarpenterArgs) bool { return a.InstallCrds != nil }, "EKS owns nodepools.karpenter.sh and nodeclaims.karpenter.sh; installing or uninstalling a CRD chart could delete every NodePool"},
	{"values", func(a KarpenterArgs) bool { return a.Values != nil }, "nothing is installed with Helm"},
	{"releaseTimeout", func(a KarpenterArgs) bool { return a.ReleaseTimeout != nil }, "nothing is installed with Helm"},
	{"retainCrdsOnDelete", func(a KarpenterArgs) bool { return a.RetainCrdsOnDelete != nil }, "EKS owns the CRDs"},
}

// resolveAutoMode fills an Auto Mode plan: the node role (or nodeRoleArn), its access, no
// controller. Every self-managed input that is set is reported.
func (p *installPlan) resolveAutoMode(args KarpenterArgs) []error {
	var errs []error
	for _, in := range selfManagedInputs {
		if in.set(args) {
			errs = append(errs, fmt.Errorf("%s: not used with mode autoMode (%s)", in.field, in.why))
		}
	}
	p.namespace, p.serviceAccount, p.chartRepository = "", "", ""
	p.installCrds, p.chartCrds, p.interruption, p.createControllerIAM = false, false, false, false
	// EKS creates instance profiles from a NodeClass's role; one of the component's own is
	// only for classes that name it in instanceProfile.
	p.createInstanceProfile = p.createNodeRole && deref(args.CreateInstanceProfile, false)

	// Nodes of a custom NodeClass join only through an EC2 access entry, so the component
	// creates one even for nodeRoleArn: a role EKS already has an entry for (the cluster's
	// computeConfig.nodeRoleArn) fails loudly at create — set nodeAccess none then — where a
	// missing entry fails silently.
	p.nodeAccess = deref(args.NodeAccess, "accessEntry")
	if err := checkEnum("nodeAccess", string(p.nodeAccess), enumValues[NodeAccess]()); err != nil {
		errs = append(errs, err)
	} else if p.nodeAccess == "awsAuth" {
		errs = append(errs, errors.New("nodeAccess: awsAuth does not admit Auto Mode nodes; use accessEntry (an EC2 access entry with AmazonEKSAutoNodePolicy), or none when EKS already has one for the role"))
	}
	if deref(args.ClusterAuthenticationMode, AuthenticationModeApi) == AuthenticationModeConfigMap {
		errs = append(errs, errors.New("clusterAuthenticationMode: EKS Auto Mode needs access entries (API or API_AND_CONFIG_MAP); a CONFIG_MAP cluster cannot run it"))
	}
	return errs
}

// EphemeralStorage is an Auto Mode NodeClass's node volume for ephemeral data.
type EphemeralStorage struct {
	Size       *string `pulumi:"size,optional"`
	Iops       *int    `pulumi:"iops,optional"`
	Throughput *int    `pulumi:"throughput,optional"`
	KmsKeyID   *string `pulumi:"kmsKeyID,optional"`
}

func (e *EphemeralStorage) Annotate(a infer.Annotator) {
	a.Describe(&e, "The nodes' ephemeral storage volume (EKS Auto Mode). When `size` is below the instance's local NVMe capacity, Auto Mode adds a 20 GiB EBS volume and uses the NVMe for ephemeral data.")
	a.Describe(&e.Size, "Volume size: 1-59000Gi, 1-64000G, 1-58Ti or 1-64T. Default: `80Gi`.")
	a.Describe(&e.Iops, "Provisioned IOPS (3000-16000). Default: 3000.")
	a.Describe(&e.Throughput, "Throughput in MiB/s (125-1000). Default: 125.")
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
	a.Describe(&n.Ipv4PrefixSize, "How pod IPs are assigned. Default: `Auto`.")
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
	Tags map[string]string     `pulumi:"tags,optional"`
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
	a.Describe(&s.Fips, "Use FIPS 140-validated AMIs (US East/West, GovCloud (US) and Canada Regions). Default: false.")
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

// Auto Mode NodeClass defaults, as EKS documents them and its CRD fills them in; rendered
// explicitly so a preview shows what the nodes get.
const (
	autoModeEphemeralSize       = "80Gi"
	autoModeEphemeralIops       = 3000
	autoModeEphemeralThroughput = 125
)

// classField is a NodeClassSpec field only one kind of node class has.
type classField struct {
	name    string
	set     func(NodeClassSpec) bool
	instead string
}

// ec2NodeClassOnlyFields have no Auto Mode NodeClass equivalent, or one under another name.
var ec2NodeClassOnlyFields = []classField{
	{"amiAlias", func(c NodeClassSpec) bool { return c.AmiAlias != nil }, "Auto Mode chooses the AMI (Bottlerocket, updated weekly)"},
	{"amiFamily", func(c NodeClassSpec) bool { return c.AmiFamily != nil }, "Auto Mode chooses the AMI (Bottlerocket, updated weekly)"},
	{"amiSelectorTerms", func(c NodeClassSpec) bool { return len(c.AmiSelectorTerms) > 0 }, "Auto Mode chooses the AMI (Bottlerocket, updated weekly)"},
	{"blockDeviceMappings", func(c NodeClassSpec) bool { return len(c.BlockDeviceMappings) > 0 }, "use ephemeralStorage"},
	{"metadataOptions", func(c NodeClassSpec) bool { return c.MetadataOptions != nil }, "Auto Mode fixes IMDSv2 with a hop limit of 1"},
	{"kubelet", func(c NodeClassSpec) bool { return c.Kubelet != nil }, "Auto Mode manages the kubelet"},
	{"userData", func(c NodeClassSpec) bool { return c.UserData != nil }, "Auto Mode nodes take no user data"},
	{"detailedMonitoring", func(c NodeClassSpec) bool { return c.DetailedMonitoring != nil }, "Auto Mode has no such setting"},
	{"associatePublicIPAddress", func(c NodeClassSpec) bool { return c.AssociatePublicIPAddress != nil }, "use advancedNetworking.associatePublicIPAddress"},
	{"instanceStorePolicy", func(c NodeClassSpec) bool { return c.InstanceStorePolicy != nil }, "Auto Mode uses local NVMe itself; see ephemeralStorage.size"},
	{"enclaveOptions", func(c NodeClassSpec) bool { return c.EnclaveOptions != nil }, "Auto Mode has no such setting"},
	{"networkInterfaces", func(c NodeClassSpec) bool { return len(c.NetworkInterfaces) > 0 }, "use advancedNetworking.networkInterfaces"},
	{"ipPrefixCount", func(c NodeClassSpec) bool { return c.IpPrefixCount != nil }, "use advancedNetworking.ipv4PrefixSize or a network interface's secondaryIPv4PrefixCount"},
	{"connectionTracking", func(c NodeClassSpec) bool { return c.ConnectionTracking != nil }, "Auto Mode has no such setting"},
	{"cpuOptions", func(c NodeClassSpec) bool { return c.CpuOptions != nil }, "Auto Mode has no such setting"},
	{"context", func(c NodeClassSpec) bool { return c.Context != nil }, "Auto Mode has no such setting"},
}

// autoModeOnlyFields exist only on an Auto Mode NodeClass.
var autoModeOnlyFields = []classField{
	{"ephemeralStorage", func(c NodeClassSpec) bool { return c.EphemeralStorage != nil }, "an EC2NodeClass sizes volumes with blockDeviceMappings"},
	{"networkPolicy", func(c NodeClassSpec) bool { return c.NetworkPolicy != nil }, ""},
	{"networkPolicyEventLogs", func(c NodeClassSpec) bool { return c.NetworkPolicyEventLogs != nil }, ""},
	{"snatPolicy", func(c NodeClassSpec) bool { return c.SnatPolicy != nil }, ""},
	{"podSubnetSelectorTerms", func(c NodeClassSpec) bool { return len(c.PodSubnetSelectorTerms) > 0 }, ""},
	{"podSecurityGroupSelectorTerms", func(c NodeClassSpec) bool { return len(c.PodSecurityGroupSelectorTerms) > 0 }, ""},
	{"advancedNetworking", func(c NodeClassSpec) bool { return c.AdvancedNetworking != nil }, "an EC2NodeClass has associatePublicIPAddress and networkInterfaces at the top level"},
	{"certificateBundles", func(c NodeClassSpec) bool { return len(c.CertificateBundles) > 0 }, "an EC2NodeClass installs certificates through userData"},
	{"advancedSecurity", func(c NodeClassSpec) bool { return c.AdvancedSecurity != nil }, ""},
}

// checkClassKind reports the fields of a class that its kind does not have.
func checkClassKind(field string, c NodeClassSpec, rel release) []error {
	var errs []error
	if rel.autoMode != nil {
		for _, f := range ec2NodeClassOnlyFields {
			if f.set(c) {
				errs = append(errs, fmt.Errorf("%s.%s: an EC2NodeClass field, not an EKS Auto Mode NodeClass one (mode is autoMode): %s", field, f.name, f.instead))
			}
		}
		return errs
	}
	for _, f := range autoModeOnlyFields {
		if f.set(c) {
			why := "only with mode autoMode"
			if f.instead != "" {
				why += "; " + f.instead
			}
			errs = append(errs, fmt.Errorf("%s.%s: an EKS Auto Mode NodeClass field (%s)", field, f.name, why))
		}
	}
	return errs
}

var (
	// The size pattern of the Auto Mode NodeClass CRD (ephemeralStorage.size).
	autoModeSizePattern = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)
	// Tag keys the Auto Mode NodeClass CRD refuses.
	autoModeReservedTags = []string{"karpenter.sh/provisioner-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.sh/managed-by", "eks.amazonaws.com/nodeclass"}
)

// validateAutoModeNodeClass applies the Auto Mode NodeClass's rules: the published schema's
// (patterns, ranges, CEL) and the EKS User Guide's for the fields added since.
func validateAutoModeNodeClass(field string, c NodeClassSpec, rel release) []error {
	errs := []error{checkDNSLabel(field+".name", c.Name)}
	if slices.Contains(rel.autoMode.reservedClassNames, c.Name) {
		errs = append(errs, fmt.Errorf("%s.name: %q is EKS's built-in NodeClass, which EKS reconciles (your changes would be overwritten); choose another name", field, c.Name))
	}
	if c.Role != nil && c.InstanceProfile != nil {
		errs = append(errs, fmt.Errorf("%s: role and instanceProfile are mutually exclusive (EKS either creates an instance profile for the role, or uses yours)", field))
	}
	errs = append(errs, validateClassSelection(field, c)...)
	for _, k := range sortedKeys(c.Tags) {
		if reservedClassTag(rel, k) {
			errs = append(errs, fmt.Errorf("%s.tags: tag %q is reserved for EKS Auto Mode", field, k))
		}
	}
	if (len(c.PodSubnetSelectorTerms) > 0) != (len(c.PodSecurityGroupSelectorTerms) > 0) {
		errs = append(errs, fmt.Errorf("%s: podSubnetSelectorTerms and podSecurityGroupSelectorTerms are set together (pod ENIs need both their subnets and their security groups)", field))
	}
	errs = append(errs, validateIdOrTagsTerms(field+".podSubnetSelectorTerms", len(c.PodSubnetSelectorTerms), func(i int) (bool, map[string]string) {
		return c.PodSubnetSelectorTerms[i].Id != nil, c.PodSubnetSelectorTerms[i].Tags
	})...)
	errs = append(errs, validateIdOrTagsTerms(field+".podSecurityGroupSelectorTerms", len(c.PodSecurityGroupSelectorTerms), func(i int) (bool, map[string]string) {
		return c.PodSecurityGroupSelectorTerms[i].Id != nil, c.PodSecurityGroupSelectorTerms[i].Tags
	})...)
	for i, t := range c.CapacityReservationSelectorTerms {
		if t.InstanceMatchCriteria != nil {
			errs = append(errs, fmt.Errorf("%s.capacityReservationSelectorTerms[%d].instanceMatchCriteria: an EC2NodeClass field; Auto Mode selects by id, or by tags and owner", field, i))
		}
	}
	errs = append(errs, validateCapacityReservationTerms(field+".capacityReservationSelectorTerms", c.CapacityReservationSelectorTerms, rel)...)
	if s := c.PlacementGroupSelector; s != nil && (s.Name == nil) == (s.Id == nil) {
		errs = append(errs, fmt.Errorf("%s.placementGroupSelector: set exactly one of name and id", field))
	}
	if e := c.EphemeralStorage; e != nil {
		if e.Size != nil && !autoModeSizePattern.MatchString(*e.Size) {
			errs = append(errs, fmt.Errorf("%s.ephemeralStorage.size: %q is not a size of 1-59000Gi, 1-64000G, 1-58Ti or 1-64T", field, *e.Size))
		}
		errs = append(errs,
			checkRange(field+".ephemeralStorage.iops", e.Iops, 3000, 16000),
			checkRange(field+".ephemeralStorage.throughput", e.Throughput, 125, 1000))
		if e.KmsKeyID != nil && *e.KmsKeyID == "" {
			errs = append(errs, fmt.Errorf("%s.ephemeralStorage.kmsKeyID: empty (omit it for the AWS-managed key)", field))
		}
	}
	if v := c.NetworkPolicy; v != nil {
		errs = append(errs, checkEnum(field+".networkPolicy", string(*v), enumValues[NetworkPolicy]()))
	}
	if v := c.NetworkPolicyEventLogs; v != nil {
		errs = append(errs, checkEnum(field+".networkPolicyEventLogs", string(*v), enumValues[NetworkPolicyEventLogs]()))
	}
	if v := c.SnatPolicy; v != nil {
		errs = append(errs, checkEnum(field+".snatPolicy", string(*v), enumValues[SnatPolicy]()))
	}
	if n := c.AdvancedNetworking; n != nil {
		errs = append(errs, validateAdvancedNetworking(field+".advancedNetworking", n)...)
	}
	for i, bundle := range c.CertificateBundles {
		f := fmt.Sprintf("%s.certificateBundles[%d]", field, i)
		if bundle.Name == "" {
			errs = append(errs, fmt.Errorf("%s.name: required", f))
		}
		pem, err := base64.StdEncoding.DecodeString(bundle.Data)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s.data: not base64 (%v); give the PEM bundle base64-encoded", f, err))
		case !strings.Contains(string(pem), "-----BEGIN CERTIFICATE-----"):
			errs = append(errs, fmt.Errorf("%s.data: decodes to no PEM certificate (-----BEGIN CERTIFICATE-----)", f))
		}
	}
	if s := c.AdvancedSecurity; s != nil && s.KernelLockdown != nil {
		errs = append(errs, checkEnum(field+".advancedSecurity.kernelLockdown", string(*s.KernelLockdown), enumValues[KernelLockdown]()))
	}
	return errs
}

// classWarnings are what a valid node class needs from outside the component. On an Auto Mode
// NodeClass each is something without which EKS launches no node while the class reports Ready,
// or which changes other classes (facts §7, §10); said at every preview.
func classWarnings(field string, c NodeClassSpec, rel release) []string {
	if rel.autoMode == nil {
		return nil
	}
	var out []string
	if len(c.Tags) > 0 {
		out = append(out, fmt.Sprintf("%s.tags: EKS Auto Mode applies them only if the cluster's IAM role may tag what it launches (the inline policy of the EKS User Guide's \"Custom AWS tags for EKS Auto resources\"); without it no node launches while the NodeClass reports Ready", field))
	}
	if e := c.EphemeralStorage; e != nil && e.KmsKeyID != nil {
		out = append(out, fmt.Sprintf("%s.ephemeralStorage.kmsKeyID: the key policy must let the cluster's IAM role use the key and create grants for AWS resources (kms:GrantIsForAWSResource), or nodes fail to launch", field))
	}
	if len(c.CapacityReservationSelectorTerms) > 0 {
		out = append(out, fmt.Sprintf("%s.capacityReservationSelectorTerms: while any NodeClass selects capacity reservations, EKS Auto Mode stops launching into open On-Demand Capacity Reservations for every NodeClass of the cluster", field))
	}
	return out
}

func validateAdvancedNetworking(field string, n *AdvancedNetworking) []error {
	var errs []error
	if p := n.HttpsProxy; p != nil {
		u, err := url.Parse(*p)
		if len(*p) > 255 || err != nil || u.Host == "" || u.Port() == "" {
			errs = append(errs, fmt.Errorf("%s.httpsProxy: %q is not a proxy URL with a port, e.g. http://proxy.internal:3128 (at most 255 characters)", field, *p))
		}
	}
	errs = append(errs, checkAtMost(field+".noProxy", len(n.NoProxy), 50, "entries"))
	for i, v := range n.NoProxy {
		if v == "" || len(v) > 255 {
			errs = append(errs, fmt.Errorf("%s.noProxy[%d]: must be 1-255 characters", field, i))
		}
	}
	if v := n.Ipv4PrefixSize; v != nil {
		errs = append(errs, checkEnum(field+".ipv4PrefixSize", string(*v), enumValues[Ipv4PrefixSize]()))
	}
	if n.AssociatePublicIPAddress != nil && len(n.NetworkInterfaces) > 1 {
		errs = append(errs, fmt.Errorf("%s.associatePublicIPAddress: cannot be set with more than one network interface", field))
	}
	if len(n.NetworkInterfaces) == 0 {
		return errs
	}
	// The shape rules are the EC2NodeClass's (primary interface, unique pairs, one efa-only
	// per card); the pod IP reservations are Auto Mode's own.
	plain := make([]NetworkInterface, 0, len(n.NetworkInterfaces))
	for i, ni := range n.NetworkInterfaces {
		f := fmt.Sprintf("%s.networkInterfaces[%d]", field, i)
		plain = append(plain, NetworkInterface{NetworkCardIndex: ni.NetworkCardIndex, DeviceIndex: ni.DeviceIndex, InterfaceType: ni.InterfaceType})
		errs = append(errs, checkAtLeast(f+".secondaryIPv4Count", ni.SecondaryIPv4Count, 0), checkAtLeast(f+".secondaryIPv4PrefixCount", ni.SecondaryIPv4PrefixCount, 0))
		if ni.SecondaryIPv4Count == nil && ni.SecondaryIPv4PrefixCount == nil {
			continue
		}
		switch {
		case ni.SecondaryIPv4Count != nil && ni.SecondaryIPv4PrefixCount != nil:
			errs = append(errs, fmt.Errorf("%s: set at most one of secondaryIPv4Count and secondaryIPv4PrefixCount", f))
		case ni.NetworkCardIndex != 0:
			errs = append(errs, fmt.Errorf("%s: pod IPs are reserved on network card 0 only", f))
		case ni.InterfaceType == "efa-only":
			errs = append(errs, fmt.Errorf("%s: an efa-only interface has no IP addresses to reserve", f))
		}
	}
	return append(errs, networkInterfaceShapeErrors(field+".networkInterfaces", plain)...)
}

// checkAutoModeRole refuses a role ARN where Auto Mode wants the role's name.
func checkAutoModeRole(field, v string) error {
	if strings.HasPrefix(v, "arn:") {
		return fmt.Errorf("%s: %q is an ARN; an EKS Auto Mode NodeClass takes the role's name (%s)", field, v, nameFromArn(v))
	}
	if v == "" || len(v) > 64 {
		return fmt.Errorf("%s: %q is not an IAM role name (1-64 characters)", field, v)
	}
	return nil
}

// validateAutoModePool applies Auto Mode's NodePool rules (catalog: autoModeRules): names EKS
// owns, its label keys, and the node lifetime limit.
func validateAutoModePool(field string, pool NodePoolSpec, rules *autoModeRules) []error {
	var errs []error
	if slices.Contains(rules.reservedPoolNames, pool.Name) {
		errs = append(errs, fmt.Errorf("%s.name: %q is an EKS built-in pool (enable it with the cluster's computeConfig.nodePools); choose another name", field, pool.Name))
	}
	for i, r := range pool.Requirements {
		errs = append(errs, checkAutoModeLabel(fmt.Sprintf("%s.requirements[%d].key", field, i), r.Key, rules))
	}
	for _, k := range sortedKeys(pool.Labels) {
		errs = append(errs, checkAutoModeLabel(fmt.Sprintf("%s.labels[%q]", field, k), k, rules))
	}
	expire := deref(pool.ExpireAfter, rules.defaultExpireAfter)
	if expire == "Never" {
		return append(errs, fmt.Errorf("%s.expireAfter: EKS Auto Mode does not allow Never (nodes live at most %s, terminationGracePeriod included)", field, hours(rules.maxLifetime)))
	}
	grace := rules.defaultTerminationGrace
	if pool.TerminationGracePeriod != nil {
		grace, _ = time.ParseDuration(*pool.TerminationGracePeriod) // malformed ones are reported by validateNodePool
	}
	if life, err := time.ParseDuration(expire); err == nil && life+grace > rules.maxLifetime {
		errs = append(errs, fmt.Errorf("%s.expireAfter: %s plus terminationGracePeriod %s is more than EKS Auto Mode's %s (21 days)",
			field, expire, hours(grace), hours(rules.maxLifetime)))
	}
	return errs
}

// checkAutoModeLabel applies Auto Mode's label rules on top of Karpenter's: only the
// supported eks.amazonaws.com keys (the domain and its subdomains are restricted), no
// karpenter.k8s.aws keys (Auto Mode labels its nodes under eks.amazonaws.com instead).
func checkAutoModeLabel(field, key string, rules *autoModeRules) error {
	if why, ok := rules.unsupportedLabels[key]; ok {
		return fmt.Errorf("%s: %q is not supported by EKS Auto Mode: %s", field, key, why)
	}
	domain, name, hasDomain := strings.Cut(key, "/")
	switch {
	case !hasDomain:
		return nil
	case domain == "karpenter.k8s.aws" || strings.HasSuffix(domain, ".karpenter.k8s.aws"):
		if name == "ec2nodeclass" {
			name = "nodeclass"
		}
		if eks := "eks.amazonaws.com/" + name; slices.Contains(rules.labelKeys, eks) {
			return fmt.Errorf("%s: %q is self-managed Karpenter's label; EKS Auto Mode labels its nodes %q", field, key, eks)
		}
		return fmt.Errorf("%s: %q is self-managed Karpenter's label and EKS Auto Mode has no equivalent", field, key)
	case (domain == "eks.amazonaws.com" || strings.HasSuffix(domain, ".eks.amazonaws.com")) && !slices.Contains(rules.labelKeys, key):
		return fmt.Errorf("%s: label domain \"eks.amazonaws.com\" is restricted (subdomains too); allowed keys there: %s", field, strings.Join(rules.labelKeys, ", "))
	}
	return nil
}

// hours prints a duration the way NodePools write them (336h, 24h, 1h30m).
func hours(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

// autoModeNodeClassSpec renders an eks.amazonaws.com/v1 NodeClass, with the documented
// defaults written out.
func (b *builder) autoModeNodeClassSpec(c NodeClassSpec) map[string]any {
	spec := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
		"networkPolicy":              string(deref(c.NetworkPolicy, "DefaultAllow")),
		"networkPolicyEventLogs":     string(deref(c.NetworkPolicyEventLogs, "Disabled")),
		"snatPolicy":                 string(deref(c.SnatPolicy, "Random")),
	}
	b.roleOrProfile(spec, c)
	e := deref(c.EphemeralStorage, EphemeralStorage{})
	storage := map[string]any{
		"size":       deref(e.Size, autoModeEphemeralSize),
		"iops":       deref(e.Iops, autoModeEphemeralIops),
		"throughput": deref(e.Throughput, autoModeEphemeralThroughput),
	}
	putString(storage, "kmsKeyID", e.KmsKeyID)
	spec["ephemeralStorage"] = storage
	b.putClassTags(spec, c)
	putPodTerms(spec, "podSubnetSelectorTerms", len(c.PodSubnetSelectorTerms), func(i int) map[string]any {
		return selectorTerm(c.PodSubnetSelectorTerms[i].Id, nil, c.PodSubnetSelectorTerms[i].Tags)
	})
	putPodTerms(spec, "podSecurityGroupSelectorTerms", len(c.PodSecurityGroupSelectorTerms), func(i int) map[string]any {
		return selectorTerm(c.PodSecurityGroupSelectorTerms[i].Id, nil, c.PodSecurityGroupSelectorTerms[i].Tags)
	})
	// The EKS docs name the reservation owner `owner` (upstream Karpenter: ownerID).
	putPodTerms(spec, "capacityReservationSelectorTerms", len(c.CapacityReservationSelectorTerms), func(i int) map[string]any {
		t := c.CapacityReservationSelectorTerms[i]
		term := selectorTerm(t.Id, nil, t.Tags)
		putString(term, "owner", t.OwnerID)
		return term
	})
	if s := c.PlacementGroupSelector; s != nil {
		selector := map[string]any{}
		putInput(selector, "name", s.Name)
		putInput(selector, "id", s.Id)
		spec["placementGroupSelector"] = selector
	}
	if n := c.AdvancedNetworking; n != nil {
		networking := map[string]any{}
		putString(networking, "httpsProxy", n.HttpsProxy)
		if len(n.NoProxy) > 0 {
			networking["noProxy"] = slices.Clone(n.NoProxy)
		}
		putBool(networking, "associatePublicIPAddress", n.AssociatePublicIPAddress)
		putString(networking, "ipv4PrefixSize", n.Ipv4PrefixSize)
		putBool(networking, "enableV4Egress", n.EnableV4Egress)
		putPodTerms(networking, "networkInterfaces", len(n.NetworkInterfaces), func(i int) map[string]any {
			ni := n.NetworkInterfaces[i]
			out := map[string]any{"networkCardIndex": ni.NetworkCardIndex, "deviceIndex": ni.DeviceIndex, "interfaceType": string(ni.InterfaceType)}
			putInt(out, "secondaryIPv4Count", ni.SecondaryIPv4Count)
			putInt(out, "secondaryIPv4PrefixCount", ni.SecondaryIPv4PrefixCount)
			return out
		})
		spec["advancedNetworking"] = networking
	}
	putPodTerms(spec, "certificateBundles", len(c.CertificateBundles), func(i int) map[string]any {
		return map[string]any{"name": c.CertificateBundles[i].Name, "data": c.CertificateBundles[i].Data}
	})
	if s := c.AdvancedSecurity; s != nil {
		security := map[string]any{}
		putBool(security, "fips", s.Fips)
		putString(security, "kernelLockdown", s.KernelLockdown)
		spec["advancedSecurity"] = security
	}
	return spec
}

// putPodTerms puts a list of n rendered items under key, or nothing when n is 0.
func putPodTerms(spec map[string]any, key string, n int, item func(int) map[string]any) {
	if n == 0 {
		return
	}
	out := make([]any, 0, n)
	for i := range n {
		out = append(out, item(i))
	}
	spec[key] = out
}

// createAutoModeNodeAccess gives the node role, and the own role of every node class that has
// one, an EC2 access entry with AmazonEKSAutoNodePolicy associated cluster-wide — the entry EKS
// creates itself only for the cluster's own node role, and the one users forget for a custom
// class role (its nodes launch and never join).
func (b *builder) createAutoModeNodeAccess(roleArn pulumi.StringOutput) ([]pulumi.Resource, error) {
	access, err := b.createAutoModeAccessEntry("-node-access", roleArn)
	if err != nil {
		return nil, err
	}
	for _, c := range b.plan.classes {
		if arn, ok := b.classRoleArn(c); ok {
			more, err := b.createAutoModeAccessEntry("-nodeclass-"+c.Name+"-access", arn)
			if err != nil {
				return nil, err
			}
			access = append(access, more...)
		}
	}
	return access, nil
}

func (b *builder) createAutoModeAccessEntry(suffix string, principalArn pulumi.StringOutput) ([]pulumi.Resource, error) {
	rules := b.plan.release.autoMode
	entry, err := b.newChild(eksAccessEntry, suffix, pulumi.Map{
		"clusterName":  b.args.ClusterName,
		"principalArn": principalArn,
		"type":         pulumi.String(rules.accessEntryType),
		"tags":         b.args.Tags,
	})
	if err != nil {
		return nil, err
	}
	// The association names the entry's principal through the entry, so it follows it.
	association, err := b.newChild(eksAccessPolicyAssociation, suffix+"-policy", pulumi.Map{
		"clusterName":  b.args.ClusterName,
		"principalArn": entry.PrincipalArn,
		"policyArn":    pulumi.String(fmt.Sprintf("arn:%s:eks::aws:cluster-access-policy/%s", b.aws.Partition, rules.accessPolicy)),
		"accessScope":  pulumi.Map{"type": pulumi.String("cluster")},
	})
	if err != nil {
		return nil, err
	}
	return []pulumi.Resource{entry, association}, nil
}

// autoModeAccessPrincipals are the roles that get an access entry (nodeRoleArn, and the classes'
// own roles), by the field that names each, for the check that no two are the same role (EKS
// allows one entry per principal).
func (b *builder) autoModeAccessPrincipals() (fields []string, arns []any) {
	if b.plan.release.autoMode == nil || b.plan.nodeAccess != "accessEntry" {
		return nil, nil
	}
	if b.args.NodeRoleArn != nil {
		fields, arns = append(fields, "nodeRoleArn"), append(arns, b.args.NodeRoleArn.ToStringPtrOutput().Elem())
	}
	for i, c := range b.plan.classes {
		if arn, ok := b.classRoleArn(c); ok {
			field := fmt.Sprintf("nodeClasses[%d].role", i)
			if c.Role == nil {
				field = fmt.Sprintf("nodeClasses[%d].instanceProfile", i)
			}
			fields, arns = append(fields, field), append(arns, arn)
		}
	}
	return fields, arns
}

// checkDistinctPrincipals fails when two access-entry principals resolve to the same role.
func checkDistinctPrincipals(fields []string, arns []any) []error {
	var errs []error
	seen := map[string]string{}
	for i, v := range arns {
		arn, _ := v.(string)
		if first, dup := seen[arn]; dup {
			errs = append(errs, fmt.Errorf("%s: %s is also %s's role; the component creates one EC2 access entry per node class with its own role, and EKS allows one per role: leave role unset to use the component's node role, or set nodeAccess none and create the entries yourself", fields[i], arn, first))
			continue
		}
		seen[arn] = fields[i]
	}
	return errs
}
