package inputs

// EKS Auto Mode (mode: autoMode): AWS runs Karpenter. The rules are data in the catalog
// (catalog.AutoModeGeneration); this file holds the checks on Auto Mode NodeClasses and the fields
// that belong to one kind of node class only.

import (
	"encoding/base64"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// ClassField is a NodeClassSpec field only one kind of node class has.
type ClassField struct {
	Name    string
	set     func(NodeClassSpec) bool
	instead string
}

// ec2NodeClassOnlyFields have no Auto Mode NodeClass equivalent, or one under another name.
var ec2NodeClassOnlyFields = []ClassField{
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

// AutoModeOnlyFields exist only on an Auto Mode NodeClass.
var AutoModeOnlyFields = []ClassField{
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
func checkClassKind(path *field.Path, c NodeClassSpec, rel catalog.Release) []error {
	var errs []error
	if rel.IsAutoMode() {
		for _, f := range ec2NodeClassOnlyFields {
			if f.set(c) {
				errs = append(errs, field.Invalidf(path.Child(f.Name), "an EC2NodeClass field, not an EKS Auto Mode NodeClass one (mode is autoMode): %s", f.instead))
			}
		}
		return errs
	}
	for _, f := range AutoModeOnlyFields {
		if f.set(c) {
			why := "only with mode autoMode"
			if f.instead != "" {
				why += "; " + f.instead
			}
			errs = append(errs, field.Invalidf(path.Child(f.Name), "an EKS Auto Mode NodeClass field (%s)", why))
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
func validateAutoModeNodeClass(path *field.Path, c NodeClassSpec, rel catalog.Release) []error {
	errs := []error{CheckDNSLabel(path.Child("name"), c.Name)}
	if slices.Contains(rel.AutoMode.ReservedClassNames, c.Name) {
		errs = append(errs, field.Invalidf(path.Child("name"), "%q is EKS's built-in NodeClass, which EKS reconciles (your changes would be overwritten)", c.Name).
			WithHint("choose another name"))
	}
	if c.Role != nil && c.InstanceProfile != nil {
		errs = append(errs, field.Invalid(path, "role and instanceProfile are mutually exclusive (EKS either creates an instance profile for the role, or uses yours)"))
	}
	errs = append(errs, validateClassSelection(path, c)...)
	errs = append(errs, CheckAWSTags(path.Child("tags"), c.Tags, ClassTagLimit)...)
	for _, k := range slices.Sorted(maps.Keys(c.Tags)) {
		if reservedClassTag(rel, k) {
			errs = append(errs, field.Invalidf(path.Child("tags"), "tag %q is reserved for EKS Auto Mode", k))
		}
	}
	if (len(c.PodSubnetSelectorTerms) > 0) != (len(c.PodSecurityGroupSelectorTerms) > 0) {
		errs = append(errs, field.Invalid(path, "podSubnetSelectorTerms and podSecurityGroupSelectorTerms are set together (pod ENIs need both their subnets and their security groups)"))
	}
	errs = append(errs, validateIdOrTagsTerms(path.Child("podSubnetSelectorTerms"), len(c.PodSubnetSelectorTerms), func(i int) (bool, map[string]string) {
		return c.PodSubnetSelectorTerms[i].Id != nil, c.PodSubnetSelectorTerms[i].Tags
	})...)
	errs = append(errs, validateIdOrTagsTerms(path.Child("podSecurityGroupSelectorTerms"), len(c.PodSecurityGroupSelectorTerms), func(i int) (bool, map[string]string) {
		return c.PodSecurityGroupSelectorTerms[i].Id != nil, c.PodSecurityGroupSelectorTerms[i].Tags
	})...)
	for i, t := range c.CapacityReservationSelectorTerms {
		if t.InstanceMatchCriteria != nil {
			errs = append(errs, field.Invalid(path.Child("capacityReservationSelectorTerms").Index(i).Child("instanceMatchCriteria"), "an EC2NodeClass field; Auto Mode selects by id, or by tags and owner"))
		}
	}
	errs = append(errs, validateCapacityReservationTerms(path.Child("capacityReservationSelectorTerms"), c.CapacityReservationSelectorTerms, rel)...)
	if s := c.PlacementGroupSelector; s != nil && (s.Name == nil) == (s.Id == nil) {
		errs = append(errs, field.Invalid(path.Child("placementGroupSelector"), "set exactly one of name and id"))
	}
	if e := c.EphemeralStorage; e != nil {
		storage := path.Child("ephemeralStorage")
		if e.Size != nil && !autoModeSizePattern.MatchString(*e.Size) {
			errs = append(errs, field.Invalidf(storage.Child("size"), "%q is not a size of 1-59000Gi, 1-64000G, 1-58Ti or 1-64T", *e.Size))
		}
		errs = append(errs,
			checkRange(storage.Child("iops"), e.Iops, 3000, 16000),
			checkRange(storage.Child("throughput"), e.Throughput, 125, 1000))
		if e.KmsKeyID != nil && *e.KmsKeyID == "" {
			errs = append(errs, field.Invalid(storage.Child("kmsKeyID"), "empty (omit it for the AWS-managed key)"))
		}
	}
	if v := c.NetworkPolicy; v != nil {
		errs = append(errs, CheckEnum(path.Child("networkPolicy"), string(*v), EnumValues[NetworkPolicy]()))
	}
	if v := c.NetworkPolicyEventLogs; v != nil {
		errs = append(errs, CheckEnum(path.Child("networkPolicyEventLogs"), string(*v), EnumValues[NetworkPolicyEventLogs]()))
	}
	if v := c.SnatPolicy; v != nil {
		errs = append(errs, CheckEnum(path.Child("snatPolicy"), string(*v), EnumValues[SnatPolicy]()))
	}
	if n := c.AdvancedNetworking; n != nil {
		errs = append(errs, validateAdvancedNetworking(path.Child("advancedNetworking"), n)...)
	}
	for i, bundle := range c.CertificateBundles {
		f := path.Child("certificateBundles").Index(i)
		if bundle.Name == "" {
			errs = append(errs, field.Required(f.Child("name"), ""))
		}
		pem, err := base64.StdEncoding.DecodeString(bundle.Data)
		switch {
		case err != nil:
			errs = append(errs, field.Invalidf(f.Child("data"), "not base64 (%v)", err).WithHint("give the PEM bundle base64-encoded"))
		case !strings.Contains(string(pem), "-----BEGIN CERTIFICATE-----"):
			errs = append(errs, field.Invalid(f.Child("data"), "decodes to no PEM certificate (-----BEGIN CERTIFICATE-----)"))
		}
	}
	if s := c.AdvancedSecurity; s != nil && s.KernelLockdown != nil {
		errs = append(errs, CheckEnum(path.Child("advancedSecurity", "kernelLockdown"), string(*s.KernelLockdown), EnumValues[KernelLockdown]()))
	}
	return errs
}

// ClassWarnings are what a valid node class needs from outside the component. On an Auto Mode
// NodeClass each is something without which EKS launches no node while the class reports Ready,
// or which changes other classes (UG create-node-class, auto-cluster-iam-role, create-node-pool); said at every preview.
func ClassWarnings(path *field.Path, c NodeClassSpec, rel catalog.Release) []field.Warning {
	if !rel.IsAutoMode() {
		return nil
	}
	var out []field.Warning
	if len(c.Tags) > 0 {
		out = append(out, field.Warnf(path.Child("tags"), "EKS Auto Mode applies them only if the cluster's IAM role may tag what it launches (the inline policy of the EKS User Guide's \"Custom AWS tags for EKS Auto resources\"); without it no node launches while the NodeClass reports Ready"))
	}
	if e := c.EphemeralStorage; e != nil && e.KmsKeyID != nil {
		out = append(out, field.Warnf(path.Child("ephemeralStorage", "kmsKeyID"), "the key policy must let the cluster's IAM role use the key and create grants for AWS resources (kms:GrantIsForAWSResource), or nodes fail to launch"))
	}
	if len(c.CapacityReservationSelectorTerms) > 0 {
		out = append(out, field.Warnf(path.Child("capacityReservationSelectorTerms"), "while any NodeClass selects capacity reservations, EKS Auto Mode stops launching into open On-Demand Capacity Reservations for every NodeClass of the cluster"))
	}
	return out
}

func validateAdvancedNetworking(path *field.Path, n *AdvancedNetworking) []error {
	var errs []error
	if p := n.HttpsProxy; p != nil {
		u, err := url.Parse(*p)
		if len(*p) > 255 || err != nil || u.Host == "" || u.Port() == "" {
			errs = append(errs, field.Invalidf(path.Child("httpsProxy"), "%q is not a proxy URL with a port, e.g. http://proxy.internal:3128 (at most 255 characters)", *p))
		}
	}
	errs = append(errs, checkAtMost(path.Child("noProxy"), len(n.NoProxy), 50, "entries"))
	for i, v := range n.NoProxy {
		if v == "" || len(v) > 255 {
			errs = append(errs, field.Invalid(path.Child("noProxy").Index(i), "must be 1-255 characters"))
		}
	}
	if v := n.Ipv4PrefixSize; v != nil {
		errs = append(errs, CheckEnum(path.Child("ipv4PrefixSize"), string(*v), EnumValues[Ipv4PrefixSize]()))
	}
	if n.AssociatePublicIPAddress != nil && len(n.NetworkInterfaces) > 1 {
		errs = append(errs, field.Invalid(path.Child("associatePublicIPAddress"), "cannot be set with more than one network interface"))
	}
	if len(n.NetworkInterfaces) == 0 {
		return errs
	}
	// The shape rules are the EC2NodeClass's (primary interface, unique pairs, one efa-only
	// per card); the pod IP reservations are Auto Mode's own.
	plain := make([]NetworkInterface, 0, len(n.NetworkInterfaces))
	for i, ni := range n.NetworkInterfaces {
		f := path.Child("networkInterfaces").Index(i)
		plain = append(plain, NetworkInterface{NetworkCardIndex: ni.NetworkCardIndex, DeviceIndex: ni.DeviceIndex, InterfaceType: ni.InterfaceType})
		errs = append(errs, checkAtLeast(f.Child("secondaryIPv4Count"), ni.SecondaryIPv4Count, 0), checkAtLeast(f.Child("secondaryIPv4PrefixCount"), ni.SecondaryIPv4PrefixCount, 0))
		if ni.SecondaryIPv4Count == nil && ni.SecondaryIPv4PrefixCount == nil {
			continue
		}
		switch {
		case ni.SecondaryIPv4Count != nil && ni.SecondaryIPv4PrefixCount != nil:
			errs = append(errs, field.Invalid(f, "set at most one of secondaryIPv4Count and secondaryIPv4PrefixCount"))
		case ni.NetworkCardIndex != 0:
			errs = append(errs, field.Invalid(f, "pod IPs are reserved on network card 0 only"))
		case ni.InterfaceType == "efa-only":
			errs = append(errs, field.Invalid(f, "an efa-only interface has no IP addresses to reserve"))
		}
	}
	return append(errs, networkInterfaceShapeErrors(path.Child("networkInterfaces"), plain)...)
}
