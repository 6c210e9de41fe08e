package inputs

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
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
func ValidateClass(field string, c NodeClassSpec, rel catalog.Release) []error {
	errs := checkClassKind(field, c, rel)
	if rel.AutoMode != nil {
		return append(errs, validateAutoModeNodeClass(field, c, rel)...)
	}
	return append(errs, validateNodeClass(field, c, rel)...)
}

func validateNodeClass(field string, c NodeClassSpec, rel catalog.Release) []error {
	var errs []error
	errs = append(errs, CheckDNSLabel(field+".name", c.Name))
	if c.Role != nil && c.InstanceProfile != nil {
		errs = append(errs, fmt.Errorf("%s: role and instanceProfile are mutually exclusive (Karpenter either manages an instance profile for the role, or uses yours)", field))
	}
	errs = append(errs, rel.Require(field+".role", c.Role != nil, catalog.FeatureNodeClassRole))
	errs = append(errs, rel.Require(field+".instanceProfile", c.InstanceProfile != nil && rel.Has(catalog.FeatureNodeClassRole), catalog.FeatureNodeClassProfile))
	errs = append(errs, rel.Require(field+".associatePublicIPAddress", c.AssociatePublicIPAddress != nil, catalog.FeatureAssociatePublicIP))
	errs = append(errs, rel.Require(field+".instanceStorePolicy", c.InstanceStorePolicy != nil, catalog.FeatureInstanceStorePolicy))
	errs = append(errs, rel.Require(field+".enclaveOptions", c.EnclaveOptions != nil, catalog.FeatureEnclaveOptions))
	if !rel.Has(catalog.FeatureNodeClassRole) {
		errs = append(errs, alphaSelectorErrors(field, c)...)
	}
	if c.AmiAlias != nil && len(c.AmiSelectorTerms) > 0 {
		errs = append(errs, fmt.Errorf("%s: amiAlias and amiSelectorTerms are mutually exclusive (an alias must be the only AMI selector term)", field))
	}
	aliases := 0
	if c.AmiAlias != nil {
		aliases++
		errs = append(errs, checkAmiAlias(field+".amiAlias", *c.AmiAlias, rel)...)
	}
	for i, t := range c.AmiSelectorTerms {
		f := fmt.Sprintf("%s.amiSelectorTerms[%d]", field, i)
		switch {
		case t.Alias != nil:
			aliases++
			if t.Id != nil || t.Name != nil || t.Owner != nil || t.Tags != nil || t.SsmParameter != nil {
				errs = append(errs, fmt.Errorf("%s: alias must be the only field of its term", f))
			}
			errs = append(errs, rel.Require(f+".alias", true, catalog.FeatureV1))
			errs = append(errs, checkAmiAlias(f+".alias", *t.Alias, rel)...)
		case t.Id != nil:
			if t.Name != nil || t.Owner != nil || t.Tags != nil {
				errs = append(errs, fmt.Errorf("%s: id must not be combined with name, owner or tags", f))
			}
			if !amiIDPattern.MatchString(*t.Id) {
				errs = append(errs, fmt.Errorf("%s.id: %q is not an AMI id (ami-...)", f, *t.Id))
			}
		case t.Name == nil && t.Tags == nil && t.SsmParameter == nil:
			errs = append(errs, fmt.Errorf("%s: set one of alias, id, name, tags or ssmParameter", f))
		}
		errs = append(errs, rel.Require(f+".ssmParameter", t.SsmParameter != nil, catalog.FeatureSSMParameter))
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	if len(c.AmiSelectorTerms) > 1 && aliases > 0 {
		errs = append(errs, fmt.Errorf("%s.amiSelectorTerms: a term with alias must be the only term", field))
	}
	errs = append(errs, checkAtMost(field+".amiSelectorTerms", len(c.AmiSelectorTerms), 30, "terms"))
	if c.AmiFamily != nil {
		errs = append(errs, CheckEnum(field+".amiFamily", *c.AmiFamily, rel.AmiFamilies))
		errs = append(errs, rel.Require(field+".amiFamily", *c.AmiFamily == "Windows2025", catalog.FeatureWindows2025))
		errs = append(errs, rel.Require(field+".amiFamily", *c.AmiFamily == "AL2023", catalog.FeatureAL2023))
		if slices.Contains(rel.AmiFamilies, *c.AmiFamily) { // else CheckEnum reported it
			errs = append(errs, checkAliasFamily(field+".amiFamily", *c.AmiFamily, c))
		}
	} else if len(c.AmiSelectorTerms) > 0 && aliases == 0 {
		errs = append(errs, fmt.Errorf("%s.amiFamily: required when AMIs are selected without an alias (it tells Karpenter how to bootstrap them)", field))
	}
	errs = append(errs, validateClassSelection(field, c)...)
	errs = append(errs, CheckAWSTags(field+".tags", c.Tags, ClassTagLimit)...)
	for _, k := range slices.Sorted(maps.Keys(c.Tags)) {
		if reservedClassTag(rel, k) {
			errs = append(errs, fmt.Errorf("%s.tags: tag %q is reserved for Karpenter", field, k))
		}
	}
	roots := 0
	for i, m := range c.BlockDeviceMappings {
		f := fmt.Sprintf("%s.blockDeviceMappings[%d]", field, i)
		if Deref(m.RootVolume, false) {
			roots++
		}
		errs = append(errs, rel.Require(f+".rootVolume", m.RootVolume != nil, catalog.FeatureRootVolume))
		if m.Ebs == nil {
			continue
		}
		if m.Ebs.VolumeSize == nil && m.Ebs.SnapshotId == nil {
			errs = append(errs, fmt.Errorf("%s.ebs: set volumeSize or snapshotId", f))
		}
		if m.Ebs.VolumeSize != nil && !volumeSizeRegexp.MatchString(*m.Ebs.VolumeSize) {
			errs = append(errs, fmt.Errorf("%s.ebs.volumeSize: %q is not a volume size like 100Gi (1Gi-59000Gi, 1G-64000G, 1Ti-58Ti)", f, *m.Ebs.VolumeSize))
		}
		if m.Ebs.VolumeType != nil {
			errs = append(errs, CheckEnum(f+".ebs.volumeType", *m.Ebs.VolumeType, []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}))
		}
		if rate := m.Ebs.VolumeInitializationRate; rate != nil {
			errs = append(errs, rel.Require(f+".ebs.volumeInitializationRate", true, catalog.FeatureVolumeInitializationRate))
			errs = append(errs, checkRange(f+".ebs.volumeInitializationRate", rate, 100, 300))
			if Deref(m.Ebs.SnapshotId, "") == "" {
				errs = append(errs, fmt.Errorf("%s.ebs.volumeInitializationRate: needs snapshotId (it is the rate at which the snapshot's blocks are downloaded)", f))
			}
		}
	}
	errs = append(errs, checkAtMost(field+".blockDeviceMappings", len(c.BlockDeviceMappings), 50, "mappings"))
	if roots > 1 {
		errs = append(errs, fmt.Errorf("%s.blockDeviceMappings: at most one mapping may be the root volume", field))
	}
	if m := c.MetadataOptions; m != nil {
		for _, o := range []struct {
			name string
			v    *string
		}{{"httpEndpoint", m.HttpEndpoint}, {"httpProtocolIPv6", m.HttpProtocolIPv6}} {
			if o.v != nil {
				errs = append(errs, CheckEnum(field+".metadataOptions."+o.name, *o.v, []string{"enabled", "disabled"}))
			}
		}
		if m.HttpTokens != nil {
			errs = append(errs, CheckEnum(field+".metadataOptions.httpTokens", *m.HttpTokens, []string{"required", "optional"}))
		}
		errs = append(errs, checkRange(field+".metadataOptions.httpPutResponseHopLimit", m.HttpPutResponseHopLimit, 1, 64))
	}
	if k := c.Kubelet; k != nil {
		errs = append(errs, validateKubelet(field+".kubelet", k, c, rel)...)
	}
	if c.UserData != nil && !IsUnknown(*c.UserData) {
		errs = append(errs, checkUserData(field+".userData", *c.UserData, c.ResolvedAmiFamily(catalog.DefaultAmiAliasOf(rel))))
	}
	if c.InstanceStorePolicy != nil {
		errs = append(errs, CheckEnum(field+".instanceStorePolicy", *c.InstanceStorePolicy, []string{"RAID0"}))
	}
	errs = append(errs, validateLaunchOptions(field, c, rel)...)
	return errs
}

// validateClassSelection checks a node class's subnet and security group terms, which
// EC2NodeClasses and Auto Mode NodeClasses share.
func validateClassSelection(field string, c NodeClassSpec) []error {
	errs := validateIdOrTagsTerms(field+".subnetSelectorTerms", len(c.SubnetSelectorTerms), func(i int) (bool, map[string]string) {
		return c.SubnetSelectorTerms[i].Id != nil, c.SubnetSelectorTerms[i].Tags
	})
	errs = append(errs, checkAtMost(field+".securityGroupSelectorTerms", len(c.SecurityGroupSelectorTerms), 30, "terms"))
	for i, t := range c.SecurityGroupSelectorTerms {
		f := fmt.Sprintf("%s.securityGroupSelectorTerms[%d]", field, i)
		set := 0
		for _, present := range []bool{t.Id != nil, t.Name != nil, t.Tags != nil} {
			if present {
				set++
			}
		}
		if set != 1 {
			errs = append(errs, fmt.Errorf("%s: set exactly one of id, name and tags", f))
		}
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	return errs
}

// validateIdOrTagsTerms checks selector terms that take an id or tags, one per term: subnets,
// and an Auto Mode class's pod subnets and pod security groups.
func validateIdOrTagsTerms(field string, n int, term func(int) (id bool, tags map[string]string)) []error {
	errs := []error{checkAtMost(field, n, 30, "terms")}
	for i := range n {
		f := fmt.Sprintf("%s[%d]", field, i)
		id, tags := term(i)
		if id == (tags != nil) {
			errs = append(errs, fmt.Errorf("%s: set exactly one of id and tags", f))
		}
		errs = append(errs, checkSelectorTags(f+".tags", tags)...)
	}
	return errs
}

var ownerIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

// validateLaunchOptions checks the fields that shape how a class's instances launch:
// capacity reservations, placement group, network interfaces and IP prefixes, connection
// tracking, CPU options and the fleet context. Input-typed ids are checked once they resolve
// (the build package's gate).
func validateLaunchOptions(field string, c NodeClassSpec, rel catalog.Release) []error {
	errs := []error{rel.Require(field+".context", c.Context != nil, catalog.FeatureContext)}
	errs = append(errs, validateCapacityReservationTerms(field+".capacityReservationSelectorTerms", c.CapacityReservationSelectorTerms, rel)...)
	if s := c.PlacementGroupSelector; s != nil {
		errs = append(errs, rel.Require(field+".placementGroupSelector", true, catalog.FeaturePlacementGroupSelector))
		if (s.Name == nil) == (s.Id == nil) {
			errs = append(errs, fmt.Errorf("%s.placementGroupSelector: set exactly one of name and id", field))
		}
	}
	errs = append(errs, validateNetworkInterfaces(field+".networkInterfaces", c.NetworkInterfaces, rel)...)
	if c.IpPrefixCount != nil {
		errs = append(errs, rel.Require(field+".ipPrefixCount", true, catalog.FeatureIPPrefixCount))
		errs = append(errs, checkAtLeast(field+".ipPrefixCount", c.IpPrefixCount, 0))
	}
	if t := c.ConnectionTracking; t != nil {
		f := field + ".connectionTracking"
		errs = append(errs, rel.Require(f, true, catalog.FeatureConnectionTracking))
		if t.TcpEstablishedTimeout == nil && t.UdpStreamTimeout == nil && t.UdpTimeout == nil {
			errs = append(errs, fmt.Errorf("%s: set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout", f))
		}
		errs = append(errs,
			checkRange(f+".tcpEstablishedTimeout", t.TcpEstablishedTimeout, 60, 432000),
			checkRange(f+".udpStreamTimeout", t.UdpStreamTimeout, 60, 180),
			checkRange(f+".udpTimeout", t.UdpTimeout, 30, 60))
	}
	if o := c.CpuOptions; o != nil {
		errs = append(errs, rel.Require(field+".cpuOptions", true, catalog.FeatureCpuOptions))
		if v := o.NestedVirtualization; v != nil {
			errs = append(errs, CheckEnum(field+".cpuOptions.nestedVirtualization", string(*v), EnumValues[NestedVirtualization]()))
		}
	}
	return errs
}

// validateCapacityReservationTerms applies the CRD's rules per term. (The CRD checks that id
// stands alone with self.all, so it only fires when every term combines id with another
// field; Karpenter documents id as exclusive in each term, which is what is checked here.)
func validateCapacityReservationTerms(field string, terms []CapacityReservationSelectorTerm, rel catalog.Release) []error {
	if len(terms) == 0 {
		return nil
	}
	errs := []error{rel.Require(field, true, catalog.FeatureCapacityReservationTerms), checkAtMost(field, len(terms), 30, "terms")}
	for i, t := range terms {
		f := fmt.Sprintf("%s[%d]", field, i)
		tags, criteria := len(t.Tags) > 0, t.InstanceMatchCriteria != nil
		switch {
		case t.Id != nil && (tags || t.OwnerID != nil || criteria):
			errs = append(errs, fmt.Errorf("%s: id stands alone in its term (not with tags, ownerID or instanceMatchCriteria)", f))
		case t.Id == nil && !tags && !criteria:
			errs = append(errs, fmt.Errorf("%s: set id, tags or instanceMatchCriteria", f))
		}
		if t.OwnerID != nil && !ownerIDPattern.MatchString(*t.OwnerID) {
			errs = append(errs, fmt.Errorf("%s.ownerID: %q is not an AWS account id (12 digits)", f, *t.OwnerID))
		}
		if criteria {
			errs = append(errs, rel.Require(f+".instanceMatchCriteria", true, catalog.FeatureInstanceMatchCriteria))
			errs = append(errs, CheckEnum(f+".instanceMatchCriteria", string(*t.InstanceMatchCriteria), EnumValues[InstanceMatchCriteria]()))
		}
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	return errs
}

// validateNetworkInterfaces applies the CRD's rules: the primary interface is included, each
// networkCardIndex/deviceIndex pair is used once, and a network card has at most one
// efa-only interface.
func validateNetworkInterfaces(field string, interfaces []NetworkInterface, rel catalog.Release) []error {
	if len(interfaces) == 0 {
		return nil
	}
	return append([]error{rel.Require(field, true, catalog.FeatureNetworkInterfaces)}, networkInterfaceShapeErrors(field, interfaces)...)
}

// networkInterfaceShapeErrors are the interface rules EC2NodeClasses and Auto Mode NodeClasses
// share.
func networkInterfaceShapeErrors(field string, interfaces []NetworkInterface) []error {
	errs := []error{checkAtMost(field, len(interfaces), 150, "interfaces")}
	primary := false
	used := map[[2]int]bool{}
	efaCards := map[int]bool{}
	for i, n := range interfaces {
		f := fmt.Sprintf("%s[%d]", field, i)
		errs = append(errs,
			checkAtLeast(f+".networkCardIndex", &n.NetworkCardIndex, 0),
			checkAtLeast(f+".deviceIndex", &n.DeviceIndex, 0),
			CheckEnum(f+".interfaceType", string(n.InterfaceType), EnumValues[NetworkInterfaceType]()))
		pair := [2]int{n.NetworkCardIndex, n.DeviceIndex}
		if used[pair] {
			errs = append(errs, fmt.Errorf("%s: networkCardIndex %d, deviceIndex %d is used by another interface", f, n.NetworkCardIndex, n.DeviceIndex))
		}
		used[pair] = true
		if n.InterfaceType == "efa-only" {
			if efaCards[n.NetworkCardIndex] {
				errs = append(errs, fmt.Errorf("%s: network card %d already has an efa-only interface (at most one per card)", f, n.NetworkCardIndex))
			}
			efaCards[n.NetworkCardIndex] = true
		}
		primary = primary || (pair == [2]int{0, 0} && n.InterfaceType == "interface")
	}
	if !primary {
		errs = append(errs, fmt.Errorf("%s: must include the primary interface (networkCardIndex 0, deviceIndex 0, interfaceType interface)", field))
	}
	return errs
}

// checkRange checks an optional integer against the CRD's minimum and maximum.
func checkRange(field string, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return fmt.Errorf("%s: %d is not between %d and %d", field, *v, lo, hi)
	}
	return nil
}

// checkAtMost checks a list's (or map's) length against the CRD's maxItems (maxProperties).
func checkAtMost(field string, n, most int, what string) error {
	if n > most {
		return fmt.Errorf("%s: at most %d %s", field, most, what)
	}
	return nil
}

// checkAtLeast checks an optional integer against the CRD's minimum.
func checkAtLeast(field string, v *int, lo int) error {
	if v != nil && *v < lo {
		return fmt.Errorf("%s: %d is less than %d", field, *v, lo)
	}
	return nil
}

// checkAliasFamily applies the CRD's rule: with an alias, amiFamily is the alias's family or
// Custom.
func checkAliasFamily(field, amiFamily string, c NodeClassSpec) error {
	alias := c.Alias()
	if alias == nil || amiFamily == "Custom" {
		return nil
	}
	family, _, _ := strings.Cut(*alias, "@")
	if want, known := catalog.AliasFamilies[family]; known && want != amiFamily {
		return fmt.Errorf("%s: %s does not match the alias %q; use %s or Custom", field, amiFamily, *alias, want)
	}
	return nil
}

// checkAmiAlias checks `<family>@<version>`. Before v1 there are no aliases: an alias for a
// family's latest AMI becomes that amiFamily, which selects its latest EKS-optimized AMI.
func checkAmiAlias(field, alias string, rel catalog.Release) []error {
	if !amiAliasPattern.MatchString(alias) {
		return []error{fmt.Errorf("%s: %q is not an AMI alias <family>@<version> (e.g. al2023@latest)", field, alias)}
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
		return []error{fmt.Errorf("%s: unknown AMI alias family %q; Karpenter %s knows %s", field, family, rel.Version, strings.Join(families, ", "))}
	}
	if err := errors.Join(rel.Require(field, name == "Windows2025", catalog.FeatureWindows2025), rel.Require(field, name == "AL2023", catalog.FeatureAL2023)); err != nil {
		return []error{err}
	}
	if strings.HasPrefix(family, "windows") && version != "latest" {
		return []error{fmt.Errorf("%s: Windows aliases only support @latest", field)}
	}
	if !rel.Has(catalog.FeatureV1) && version != "latest" {
		return []error{rel.Require(field+" (a pinned AMI version)", true, catalog.FeatureV1)}
	}
	return nil
}

// alphaSelectorErrors reports selector terms v1alpha1 cannot express: its selectors are one
// map of tags, or a list of ids.
func alphaSelectorErrors(field string, c NodeClassSpec) []error {
	var errs []error
	check := func(name string, ids, tagTerms, nameTerms int) {
		if nameTerms > 0 {
			errs = append(errs, fmt.Errorf("%s.%s: selecting by name needs Karpenter %s (the Provisioner era selects by tags or ids)", field, name, catalog.FeatureSince[catalog.FeatureNodeClassRole]))
		}
		if tagTerms > 1 || (tagTerms == 1 && ids > 0) {
			errs = append(errs, fmt.Errorf("%s.%s: several terms (alternatives) need Karpenter %s; the Provisioner era takes one tag map or only ids", field, name, catalog.FeatureSince[catalog.FeatureNodeClassRole]))
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
				errs = append(errs, fmt.Errorf("%s.amiSelectorTerms: several terms need Karpenter %s; the Provisioner era takes one term or only ids", field, catalog.FeatureSince[catalog.FeatureNodeClassRole]))
				break
			}
		}
	}
	return errs
}

func checkSelectorTags(field string, tags map[string]string) []error {
	if tags != nil && len(tags) == 0 {
		// The CRDs count an empty map as no selector at all ("expected at least one, got none").
		return []error{fmt.Errorf("%s: empty: a term selects by at least one tag (\"*\" matches any value); give one, or leave tags out", field)}
	}
	errs := []error{checkAtMost(field, len(tags), 20, "tags")}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || tags[k] == "" {
			errs = append(errs, fmt.Errorf("%s: empty tag keys and values are not allowed (use \"*\" to match any value)", field))
		}
	}
	return errs
}
