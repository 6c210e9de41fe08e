package inputs

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

var (
	amiAliasPattern  = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	amiIDPattern     = regexp.MustCompile(`^ami-[0-9a-z]+$`)
	volumeSizeRegexp = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)
	reservedTagKeys  = []string{"eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass"}
	kubeletEviction  = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	kubeletReserved  = []string{"cpu", "memory", "ephemeral-storage", "pid"}
)

// ValidateClass checks a node class of either kind: the fields its kind lacks, then its rules.
func ValidateClass(path *field.Path, c NodeClassSpec, rel catalog.Release) []error {
	errs := checkClassKind(path, c, rel)
	if rel.IsAutoMode() {
		return append(errs, validateAutoModeNodeClass(path, c, rel)...)
	}
	return append(errs, validateNodeClass(path, c, rel)...)
}

func validateNodeClass(path *field.Path, c NodeClassSpec, rel catalog.Release) []error {
	var errs []error
	errs = append(errs, CheckDNSLabel(path.Child("name"), c.Name))
	if c.Role != nil && c.InstanceProfile != nil {
		errs = append(errs, field.Invalid(path, "role and instanceProfile are mutually exclusive (Karpenter either manages an instance profile for the role, or uses yours)"))
	}
	errs = append(errs, rel.Require(path.Child("role"), c.Role != nil, catalog.FeatureNodeClassRole))
	errs = append(errs, rel.Require(path.Child("instanceProfile"), c.InstanceProfile != nil && rel.Has(catalog.FeatureNodeClassRole), catalog.FeatureNodeClassProfile))
	errs = append(errs, rel.Require(path.Child("associatePublicIPAddress"), c.AssociatePublicIPAddress != nil, catalog.FeatureAssociatePublicIP))
	errs = append(errs, rel.Require(path.Child("instanceStorePolicy"), c.InstanceStorePolicy != nil, catalog.FeatureInstanceStorePolicy))
	errs = append(errs, rel.Require(path.Child("enclaveOptions"), c.EnclaveOptions != nil, catalog.FeatureEnclaveOptions))
	if !rel.Has(catalog.FeatureNodeClassRole) {
		errs = append(errs, alphaSelectorErrors(path, c)...)
	}
	if c.AmiAlias != nil && len(c.AmiSelectorTerms) > 0 {
		errs = append(errs, field.Invalid(path, "amiAlias and amiSelectorTerms are mutually exclusive (an alias must be the only AMI selector term)"))
	}
	aliases := 0
	if c.AmiAlias != nil {
		aliases++
		errs = append(errs, checkAmiAlias(path.Child("amiAlias"), *c.AmiAlias, rel)...)
	}
	for i, t := range c.AmiSelectorTerms {
		f := path.Child("amiSelectorTerms").Index(i)
		switch {
		case t.Alias != nil:
			aliases++
			if t.Id != nil || t.Name != nil || t.Owner != nil || t.Tags != nil || t.SsmParameter != nil {
				errs = append(errs, field.Invalid(f, "alias must be the only field of its term"))
			}
			errs = append(errs, rel.Require(f.Child("alias"), true, catalog.FeatureV1))
			errs = append(errs, checkAmiAlias(f.Child("alias"), *t.Alias, rel)...)
		case t.Id != nil:
			if t.Name != nil || t.Owner != nil || t.Tags != nil {
				errs = append(errs, field.Invalid(f, "id must not be combined with name, owner or tags"))
			}
			if !amiIDPattern.MatchString(*t.Id) {
				errs = append(errs, field.Invalidf(f.Child("id"), "%q is not an AMI id (ami-...)", *t.Id))
			}
		case t.Name == nil && t.Tags == nil && t.SsmParameter == nil:
			errs = append(errs, field.Invalid(f, "set one of alias, id, name, tags or ssmParameter"))
		}
		errs = append(errs, rel.Require(f.Child("ssmParameter"), t.SsmParameter != nil, catalog.FeatureSSMParameter))
		errs = append(errs, checkSelectorTags(f.Child("tags"), t.Tags)...)
	}
	if len(c.AmiSelectorTerms) > 1 && aliases > 0 {
		errs = append(errs, field.Invalid(path.Child("amiSelectorTerms"), "a term with alias must be the only term"))
	}
	errs = append(errs, checkAtMost(path.Child("amiSelectorTerms"), len(c.AmiSelectorTerms), 30, "terms"))
	if c.AmiFamily != nil {
		family := path.Child("amiFamily")
		errs = append(errs, CheckEnum(family, *c.AmiFamily, rel.AmiFamilies))
		errs = append(errs, rel.Require(family, *c.AmiFamily == "Windows2025", catalog.FeatureWindows2025))
		errs = append(errs, rel.Require(family, *c.AmiFamily == "AL2023", catalog.FeatureAL2023))
		if slices.Contains(rel.AmiFamilies, *c.AmiFamily) { // else CheckEnum reported it
			errs = append(errs, checkAliasFamily(family, *c.AmiFamily, c))
		}
	} else if len(c.AmiSelectorTerms) > 0 && aliases == 0 {
		errs = append(errs, field.Required(path.Child("amiFamily"), "when AMIs are selected without an alias (it tells Karpenter how to bootstrap them)"))
	}
	errs = append(errs, validateClassSelection(path, c)...)
	errs = append(errs, CheckAWSTags(path.Child("tags"), c.Tags, ClassTagLimit)...)
	for _, k := range slices.Sorted(maps.Keys(c.Tags)) {
		if reservedClassTag(rel, k) {
			errs = append(errs, field.Invalidf(path.Child("tags"), "tag %q is reserved for Karpenter", k))
		}
	}
	roots := 0
	for i, m := range c.BlockDeviceMappings {
		f := path.Child("blockDeviceMappings").Index(i)
		if Deref(m.RootVolume, false) {
			roots++
		}
		errs = append(errs, rel.Require(f.Child("rootVolume"), m.RootVolume != nil, catalog.FeatureRootVolume))
		if m.Ebs == nil {
			continue
		}
		ebs := f.Child("ebs")
		if m.Ebs.VolumeSize == nil && m.Ebs.SnapshotId == nil {
			errs = append(errs, field.Invalid(ebs, "set volumeSize or snapshotId"))
		}
		if m.Ebs.VolumeSize != nil && !volumeSizeRegexp.MatchString(*m.Ebs.VolumeSize) {
			errs = append(errs, field.Invalidf(ebs.Child("volumeSize"), "%q is not a volume size like 100Gi (1Gi-59000Gi, 1G-64000G, 1Ti-58Ti)", *m.Ebs.VolumeSize))
		}
		if m.Ebs.VolumeType != nil {
			errs = append(errs, CheckEnum(ebs.Child("volumeType"), *m.Ebs.VolumeType, []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}))
		}
		if rate := m.Ebs.VolumeInitializationRate; rate != nil {
			errs = append(errs, rel.Require(ebs.Child("volumeInitializationRate"), true, catalog.FeatureVolumeInitializationRate))
			errs = append(errs, checkRange(ebs.Child("volumeInitializationRate"), rate, 100, 300))
			if Deref(m.Ebs.SnapshotId, "") == "" {
				errs = append(errs, field.Invalid(ebs.Child("volumeInitializationRate"), "needs snapshotId (it is the rate at which the snapshot's blocks are downloaded)"))
			}
		}
	}
	errs = append(errs, checkAtMost(path.Child("blockDeviceMappings"), len(c.BlockDeviceMappings), 50, "mappings"))
	if roots > 1 {
		errs = append(errs, field.Invalid(path.Child("blockDeviceMappings"), "at most one mapping may be the root volume"))
	}
	if m := c.MetadataOptions; m != nil {
		options := path.Child("metadataOptions")
		for _, o := range []struct {
			name string
			v    *string
		}{{"httpEndpoint", m.HttpEndpoint}, {"httpProtocolIPv6", m.HttpProtocolIPv6}} {
			if o.v != nil {
				errs = append(errs, CheckEnum(options.Child(o.name), *o.v, []string{"enabled", "disabled"}))
			}
		}
		if m.HttpTokens != nil {
			errs = append(errs, CheckEnum(options.Child("httpTokens"), *m.HttpTokens, []string{"required", "optional"}))
		}
		errs = append(errs, checkRange(options.Child("httpPutResponseHopLimit"), m.HttpPutResponseHopLimit, 1, 64))
	}
	if k := c.Kubelet; k != nil {
		errs = append(errs, validateKubelet(path.Child("kubelet"), k, c, rel)...)
	}
	if c.UserData != nil && !IsUnknown(*c.UserData) {
		errs = append(errs, checkUserData(path.Child("userData"), *c.UserData, c.ResolvedAmiFamily(catalog.DefaultAmiAliasOf(rel))))
	}
	if c.InstanceStorePolicy != nil {
		errs = append(errs, CheckEnum(path.Child("instanceStorePolicy"), *c.InstanceStorePolicy, []string{"RAID0"}))
	}
	errs = append(errs, validateLaunchOptions(path, c, rel)...)
	return errs
}

// validateClassSelection checks a node class's subnet and security group terms, which
// EC2NodeClasses and Auto Mode NodeClasses share.
func validateClassSelection(path *field.Path, c NodeClassSpec) []error {
	errs := validateIdOrTagsTerms(path.Child("subnetSelectorTerms"), len(c.SubnetSelectorTerms), func(i int) (bool, map[string]string) {
		return c.SubnetSelectorTerms[i].Id != nil, c.SubnetSelectorTerms[i].Tags
	})
	errs = append(errs, checkAtMost(path.Child("securityGroupSelectorTerms"), len(c.SecurityGroupSelectorTerms), 30, "terms"))
	for i, t := range c.SecurityGroupSelectorTerms {
		f := path.Child("securityGroupSelectorTerms").Index(i)
		set := 0
		for _, present := range []bool{t.Id != nil, t.Name != nil, t.Tags != nil} {
			if present {
				set++
			}
		}
		if set != 1 {
			errs = append(errs, field.Invalid(f, "set exactly one of id, name and tags"))
		}
		errs = append(errs, checkSelectorTags(f.Child("tags"), t.Tags)...)
	}
	return errs
}

// validateIdOrTagsTerms checks selector terms that take an id or tags, one per term: subnets,
// and an Auto Mode class's pod subnets and pod security groups.
func validateIdOrTagsTerms(path *field.Path, n int, term func(int) (id bool, tags map[string]string)) []error {
	errs := []error{checkAtMost(path, n, 30, "terms")}
	for i := range n {
		f := path.Index(i)
		id, tags := term(i)
		if id == (tags != nil) {
			errs = append(errs, field.Invalid(f, "set exactly one of id and tags"))
		}
		errs = append(errs, checkSelectorTags(f.Child("tags"), tags)...)
	}
	return errs
}

var ownerIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

// validateLaunchOptions checks the fields that shape how a class's instances launch:
// capacity reservations, placement group, network interfaces and IP prefixes, connection
// tracking, CPU options and the fleet context. Input-typed ids are checked once they resolve
// (the children package's gate).
func validateLaunchOptions(path *field.Path, c NodeClassSpec, rel catalog.Release) []error {
	errs := []error{rel.Require(path.Child("context"), c.Context != nil, catalog.FeatureContext)}
	errs = append(errs, validateCapacityReservationTerms(path.Child("capacityReservationSelectorTerms"), c.CapacityReservationSelectorTerms, rel)...)
	if s := c.PlacementGroupSelector; s != nil {
		errs = append(errs, rel.Require(path.Child("placementGroupSelector"), true, catalog.FeaturePlacementGroupSelector))
		if (s.Name == nil) == (s.Id == nil) {
			errs = append(errs, field.Invalid(path.Child("placementGroupSelector"), "set exactly one of name and id"))
		}
	}
	errs = append(errs, validateNetworkInterfaces(path.Child("networkInterfaces"), c.NetworkInterfaces, rel)...)
	if c.IpPrefixCount != nil {
		errs = append(errs, rel.Require(path.Child("ipPrefixCount"), true, catalog.FeatureIPPrefixCount))
		errs = append(errs, checkAtLeast(path.Child("ipPrefixCount"), c.IpPrefixCount, 0))
	}
	if t := c.ConnectionTracking; t != nil {
		f := path.Child("connectionTracking")
		errs = append(errs, rel.Require(f, true, catalog.FeatureConnectionTracking))
		if t.TcpEstablishedTimeout == nil && t.UdpStreamTimeout == nil && t.UdpTimeout == nil {
			errs = append(errs, field.Invalid(f, "set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout"))
		}
		errs = append(errs,
			checkRange(f.Child("tcpEstablishedTimeout"), t.TcpEstablishedTimeout, 60, 432000),
			checkRange(f.Child("udpStreamTimeout"), t.UdpStreamTimeout, 60, 180),
			checkRange(f.Child("udpTimeout"), t.UdpTimeout, 30, 60))
	}
	if o := c.CpuOptions; o != nil {
		errs = append(errs, rel.Require(path.Child("cpuOptions"), true, catalog.FeatureCpuOptions))
		if v := o.NestedVirtualization; v != nil {
			errs = append(errs, CheckEnum(path.Child("cpuOptions", "nestedVirtualization"), string(*v), EnumValues[NestedVirtualization]()))
		}
	}
	return errs
}

// validateCapacityReservationTerms applies the CRD's rules per term. (The CRD checks that id
// stands alone with self.all, so it only fires when every term combines id with another
// field; Karpenter documents id as exclusive in each term, which is what is checked here.)
func validateCapacityReservationTerms(path *field.Path, terms []CapacityReservationSelectorTerm, rel catalog.Release) []error {
	if len(terms) == 0 {
		return nil
	}
	errs := []error{rel.Require(path, true, catalog.FeatureCapacityReservationTerms), checkAtMost(path, len(terms), 30, "terms")}
	for i, t := range terms {
		f := path.Index(i)
		tags, criteria := len(t.Tags) > 0, t.InstanceMatchCriteria != nil
		switch {
		case t.Id != nil && (tags || t.OwnerID != nil || criteria):
			errs = append(errs, field.Invalid(f, "id stands alone in its term (not with tags, ownerID or instanceMatchCriteria)"))
		case t.Id == nil && !tags && !criteria:
			errs = append(errs, field.Invalid(f, "set id, tags or instanceMatchCriteria"))
		}
		if t.OwnerID != nil && !ownerIDPattern.MatchString(*t.OwnerID) {
			errs = append(errs, field.Invalidf(f.Child("ownerID"), "%q is not an AWS account id (12 digits)", *t.OwnerID))
		}
		if criteria {
			errs = append(errs, rel.Require(f.Child("instanceMatchCriteria"), true, catalog.FeatureInstanceMatchCriteria))
			errs = append(errs, CheckEnum(f.Child("instanceMatchCriteria"), string(*t.InstanceMatchCriteria), EnumValues[InstanceMatchCriteria]()))
		}
		errs = append(errs, checkSelectorTags(f.Child("tags"), t.Tags)...)
	}
	return errs
}

// validateNetworkInterfaces applies the CRD's rules: the primary interface is included, each
// networkCardIndex/deviceIndex pair is used once, and a network card has at most one
// efa-only interface.
func validateNetworkInterfaces(path *field.Path, interfaces []NetworkInterface, rel catalog.Release) []error {
	if len(interfaces) == 0 {
		return nil
	}
	return append([]error{rel.Require(path, true, catalog.FeatureNetworkInterfaces)}, networkInterfaceShapeErrors(path, interfaces)...)
}

// networkInterfaceShapeErrors are the interface rules EC2NodeClasses and Auto Mode NodeClasses
// share.
func networkInterfaceShapeErrors(path *field.Path, interfaces []NetworkInterface) []error {
	errs := []error{checkAtMost(path, len(interfaces), 150, "interfaces")}
	primary := false
	used := map[[2]int]bool{}
	efaCards := map[int]bool{}
	for i, n := range interfaces {
		f := path.Index(i)
		errs = append(errs,
			checkAtLeast(f.Child("networkCardIndex"), &n.NetworkCardIndex, 0),
			checkAtLeast(f.Child("deviceIndex"), &n.DeviceIndex, 0),
			CheckEnum(f.Child("interfaceType"), string(n.InterfaceType), EnumValues[NetworkInterfaceType]()))
		pair := [2]int{n.NetworkCardIndex, n.DeviceIndex}
		if used[pair] {
			errs = append(errs, field.Invalidf(f, "networkCardIndex %d, deviceIndex %d is used by another interface", n.NetworkCardIndex, n.DeviceIndex))
		}
		used[pair] = true
		if n.InterfaceType == "efa-only" {
			if efaCards[n.NetworkCardIndex] {
				errs = append(errs, field.Invalidf(f, "network card %d already has an efa-only interface (at most one per card)", n.NetworkCardIndex))
			}
			efaCards[n.NetworkCardIndex] = true
		}
		primary = primary || (pair == [2]int{0, 0} && n.InterfaceType == "interface")
	}
	if !primary {
		errs = append(errs, field.Invalid(path, "must include the primary interface (networkCardIndex 0, deviceIndex 0, interfaceType interface)"))
	}
	return errs
}

// checkRange checks an optional integer against the CRD's minimum and maximum.
func checkRange(path *field.Path, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return field.Invalidf(path, "%d is not between %d and %d", *v, lo, hi)
	}
	return nil
}

// checkAtMost checks a list's (or map's) length against the CRD's maxItems (maxProperties).
func checkAtMost(path *field.Path, n, most int, what string) error {
	if n > most {
		return field.Invalidf(path, "at most %d %s", most, what)
	}
	return nil
}

// checkAtLeast checks an optional integer against the CRD's minimum.
func checkAtLeast(path *field.Path, v *int, lo int) error {
	if v != nil && *v < lo {
		return field.Invalidf(path, "%d is less than %d", *v, lo)
	}
	return nil
}

// checkAliasFamily applies the CRD's rule: with an alias, amiFamily is the alias's family or
// Custom.
func checkAliasFamily(path *field.Path, amiFamily string, c NodeClassSpec) error {
	alias := c.Alias()
	if alias == nil || amiFamily == "Custom" {
		return nil
	}
	family, _, _ := strings.Cut(*alias, "@")
	if want, known := catalog.AliasFamilies[family]; known && want != amiFamily {
		return field.Invalidf(path, "%s does not match the alias %q", amiFamily, *alias).WithHint("use " + want + " or Custom")
	}
	return nil
}

// checkAmiAlias checks `<family>@<version>`. Before v1 there are no aliases: an alias for a
// family's latest AMI becomes that amiFamily, which selects its latest EKS-optimized AMI.
func checkAmiAlias(path *field.Path, alias string, rel catalog.Release) []error {
	if !amiAliasPattern.MatchString(alias) {
		return []error{field.Invalidf(path, "%q is not an AMI alias <family>@<version> (e.g. al2023@latest)", alias)}
	}
	family, version, _ := strings.Cut(alias, "@")
	name, known := catalog.AliasFamilies[family]
	if !known || !slices.Contains(rel.AmiFamilies, name) {
		var families []string
		for _, f := range slices.Sorted(maps.Keys(catalog.AliasFamilies)) {
			if slices.Contains(rel.AmiFamilies, catalog.AliasFamilies[f]) {
				families = append(families, f)
			}
		}
		return []error{field.Invalidf(path, "unknown AMI alias family %q; Karpenter %s knows %s", family, rel.Version, strings.Join(families, ", "))}
	}
	if err := field.Join(rel.Require(path, name == "Windows2025", catalog.FeatureWindows2025), rel.Require(path, name == "AL2023", catalog.FeatureAL2023)); err != nil {
		return []error{err}
	}
	if strings.HasPrefix(family, "windows") && version != "latest" {
		return []error{field.Invalid(path, "Windows aliases only support @latest")}
	}
	if !rel.Has(catalog.FeatureV1) && version != "latest" {
		return []error{field.Invalid(path, "a pinned AMI version "+rel.Needs(catalog.FeatureV1))}
	}
	return nil
}

// alphaSelectorErrors reports selector terms v1alpha1 cannot express: its selectors are one
// map of tags, or a list of ids.
func alphaSelectorErrors(path *field.Path, c NodeClassSpec) []error {
	var errs []error
	check := func(name string, ids, tagTerms, nameTerms int) {
		if nameTerms > 0 {
			errs = append(errs, field.Invalidf(path.Child(name), "selecting by name needs Karpenter %s (the Provisioner era selects by tags or ids)", catalog.FeatureSince[catalog.FeatureNodeClassRole]))
		}
		if tagTerms > 1 || (tagTerms == 1 && ids > 0) {
			errs = append(errs, field.Invalidf(path.Child(name), "several terms (alternatives) need Karpenter %s; the Provisioner era takes one tag map or only ids", catalog.FeatureSince[catalog.FeatureNodeClassRole]))
		}
	}
	count := func(id bool, tags map[string]string) (int, int) {
		if id {
			return 1, 0
		}
		if tags != nil {
			return 0, 1
		}
		return 0, 0
	}
	var ids, tags int
	for _, t := range c.SubnetSelectorTerms {
		i, tg := count(t.Id != nil, t.Tags)
		ids, tags = ids+i, tags+tg
	}
	check("subnetSelectorTerms", ids, tags, 0)
	ids, tags = 0, 0
	names := 0
	for _, t := range c.SecurityGroupSelectorTerms {
		i, tg := count(t.Id != nil, t.Tags)
		ids, tags = ids+i, tags+tg
		if t.Name != nil {
			names++
		}
	}
	check("securityGroupSelectorTerms", ids, tags, names)
	if len(c.AmiSelectorTerms) > 1 {
		for _, t := range c.AmiSelectorTerms {
			if t.Id == nil {
				errs = append(errs, field.Invalidf(path.Child("amiSelectorTerms"), "several terms need Karpenter %s; the Provisioner era takes one term or only ids", catalog.FeatureSince[catalog.FeatureNodeClassRole]))
				break
			}
		}
	}
	return errs
}

func checkSelectorTags(path *field.Path, tags map[string]string) []error {
	if tags != nil && len(tags) == 0 {
		// The CRDs count an empty map as no selector at all ("expected at least one, got none").
		return []error{field.Invalid(path, "empty: a term selects by at least one tag (\"*\" matches any value)").WithHint("give one, or leave tags out")}
	}
	errs := []error{checkAtMost(path, len(tags), 20, "tags")}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || tags[k] == "" {
			errs = append(errs, field.Invalid(path, "empty tag keys and values are not allowed (use \"*\" to match any value)"))
		}
	}
	return errs
}
