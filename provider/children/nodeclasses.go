package children

// The typed nodeClasses render into the release's node class: EC2NodeClass v1 or v1beta1,
// AWSNodeTemplate, or EKS Auto Mode's NodeClass; the put* helpers write optional values into
// any rendered object. Fields a generation cannot express were rejected by validation, so
// rendering never drops a field.

import (
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// autoModeNodeClassSpec renders an eks.amazonaws.com/v1 NodeClass; the plan completed it with
// the documented defaults, which are written out.
func (b *builder) autoModeNodeClassSpec(c inputs.NodeClassSpec) map[string]any {
	body := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
		"networkPolicy":              string(*c.NetworkPolicy),
		"networkPolicyEventLogs":     string(*c.NetworkPolicyEventLogs),
		"snatPolicy":                 string(*c.SnatPolicy),
	}
	b.roleOrProfile(body, c)
	e := *c.EphemeralStorage
	storage := map[string]any{
		"size":       *e.Size,
		"iops":       *e.Iops,
		"throughput": *e.Throughput,
	}
	putString(storage, "kmsKeyID", e.KmsKeyID)
	body["ephemeralStorage"] = storage
	b.putClassTags(body, c)
	putPodTerms(body, "podSubnetSelectorTerms", len(c.PodSubnetSelectorTerms), func(i int) map[string]any {
		return selectorTerm(c.PodSubnetSelectorTerms[i].Id, nil, c.PodSubnetSelectorTerms[i].Tags)
	})
	putPodTerms(body, "podSecurityGroupSelectorTerms", len(c.PodSecurityGroupSelectorTerms), func(i int) map[string]any {
		return selectorTerm(c.PodSecurityGroupSelectorTerms[i].Id, nil, c.PodSecurityGroupSelectorTerms[i].Tags)
	})
	// The EKS docs name the reservation owner `owner` (upstream Karpenter: ownerID).
	putPodTerms(body, "capacityReservationSelectorTerms", len(c.CapacityReservationSelectorTerms), func(i int) map[string]any {
		t := c.CapacityReservationSelectorTerms[i]
		term := selectorTerm(t.Id, nil, t.Tags)
		putString(term, "owner", t.OwnerID)
		return term
	})
	if s := c.PlacementGroupSelector; s != nil {
		selector := map[string]any{}
		putInput(selector, "name", s.Name)
		putInput(selector, "id", s.Id)
		body["placementGroupSelector"] = selector
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
		body["advancedNetworking"] = networking
	}
	putPodTerms(body, "certificateBundles", len(c.CertificateBundles), func(i int) map[string]any {
		return map[string]any{"name": c.CertificateBundles[i].Name, "data": c.CertificateBundles[i].Data}
	})
	if s := c.AdvancedSecurity; s != nil {
		security := map[string]any{}
		putBool(security, "fips", s.Fips)
		putString(security, "kernelLockdown", s.KernelLockdown)
		body["advancedSecurity"] = security
	}
	return body
}

func (b *builder) nodeClassSpec(c inputs.NodeClassSpec) map[string]any {
	switch b.plan.Release.Name {
	case catalog.AutoModeGeneration.Name:
		return b.autoModeNodeClassSpec(c)
	case "v1alpha5":
		return b.awsNodeTemplateSpec(c)
	case "v1beta1":
		return b.nodeClassSpecV1beta1(c)
	default:
		return b.nodeClassSpecV1(c)
	}
}

// roleOrProfile is how a class's nodes get their IAM identity: the class's instance profile
// or role, or the component's node role.
func (b *builder) roleOrProfile(body map[string]any, c inputs.NodeClassSpec) {
	switch {
	case c.InstanceProfile != nil:
		body["instanceProfile"] = c.InstanceProfile
	case c.Role != nil:
		body["role"] = c.Role
	default:
		body["role"] = b.node.roleName
	}
}

// discoveryTerms select subnets or security groups by the cluster's discovery tag.
func (b *builder) discoveryTerms() []any {
	return []any{map[string]any{"tags": map[string]any{catalog.DiscoveryTag: b.plan.Deferred.ClusterName}}}
}

func (b *builder) subnetTerms(c inputs.NodeClassSpec) []any {
	if len(c.SubnetSelectorTerms) == 0 {
		return b.discoveryTerms()
	}
	var terms []any
	for _, t := range c.SubnetSelectorTerms {
		terms = append(terms, selectorTerm(t.Id, nil, t.Tags))
	}
	return terms
}

func (b *builder) securityGroupTerms(c inputs.NodeClassSpec) []any {
	if len(c.SecurityGroupSelectorTerms) == 0 {
		return b.discoveryTerms()
	}
	var terms []any
	for _, t := range c.SecurityGroupSelectorTerms {
		terms = append(terms, selectorTerm(t.Id, t.Name, t.Tags))
	}
	return terms
}

func amiTerms(c inputs.NodeClassSpec) []any {
	var terms []any
	for _, t := range c.AmiSelectorTerms {
		term := map[string]any{}
		putString(term, "alias", t.Alias)
		putString(term, "id", t.Id)
		putString(term, "name", t.Name)
		putString(term, "owner", t.Owner)
		putString(term, "ssmParameter", t.SsmParameter)
		putStringMap(term, "tags", t.Tags)
		terms = append(terms, term)
	}
	return terms
}

// nodeClassSpecV1 renders the karpenter.k8s.aws/v1 EC2NodeClass.
func (b *builder) nodeClassSpecV1(c inputs.NodeClassSpec) map[string]any {
	body := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
	}
	b.roleOrProfile(body, c)
	terms := amiTerms(c)
	if len(terms) == 0 {
		terms = []any{map[string]any{"alias": inputs.Deref(c.AmiAlias, b.plan.DefaultAmiAlias)}}
	}
	body["amiSelectorTerms"] = terms
	putString(body, "amiFamily", c.AmiFamily)
	if c.Kubelet != nil {
		body["kubelet"] = renderKubelet(c.Kubelet)
	}
	if c.EnclaveOptions != nil {
		body["enclaveOptions"] = map[string]any{"enabled": c.EnclaveOptions.Enabled}
	}
	putCapacityReservationTerms(body, c.CapacityReservationSelectorTerms)
	if s := c.PlacementGroupSelector; s != nil {
		selector := map[string]any{}
		putInput(selector, "name", s.Name)
		putInput(selector, "id", s.Id)
		body["placementGroupSelector"] = selector
	}
	putNetworkInterfaces(body, c.NetworkInterfaces)
	putInt(body, "ipPrefixCount", c.IpPrefixCount)
	if t := c.ConnectionTracking; t != nil {
		tracking := map[string]any{}
		putInt(tracking, "tcpEstablishedTimeout", t.TcpEstablishedTimeout)
		putInt(tracking, "udpStreamTimeout", t.UdpStreamTimeout)
		putInt(tracking, "udpTimeout", t.UdpTimeout)
		body["connectionTracking"] = tracking
	}
	if o := c.CpuOptions; o != nil {
		options := map[string]any{}
		putString(options, "nestedVirtualization", o.NestedVirtualization)
		body["cpuOptions"] = options
	}
	b.putClassTags(body, c)
	putClassCommon(body, c)
	return body
}

func putCapacityReservationTerms(body map[string]any, terms []inputs.CapacityReservationSelectorTerm) {
	if len(terms) == 0 {
		return
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		term := selectorTerm(t.Id, nil, t.Tags)
		putString(term, "ownerID", t.OwnerID)
		putString(term, "instanceMatchCriteria", t.InstanceMatchCriteria)
		out = append(out, term)
	}
	body["capacityReservationSelectorTerms"] = out
}

func putNetworkInterfaces(body map[string]any, interfaces []inputs.NetworkInterface) {
	if len(interfaces) == 0 {
		return
	}
	out := make([]any, 0, len(interfaces))
	for _, n := range interfaces {
		out = append(out, map[string]any{
			"networkCardIndex": n.NetworkCardIndex,
			"deviceIndex":      n.DeviceIndex,
			"interfaceType":    string(n.InterfaceType),
		})
	}
	body["networkInterfaces"] = out
}

// nodeClassSpecV1beta1 renders the karpenter.k8s.aws/v1beta1 EC2NodeClass: AMIs come from
// amiFamily (an alias `<family>@latest` means that family's latest EKS-optimized AMI).
func (b *builder) nodeClassSpecV1beta1(c inputs.NodeClassSpec) map[string]any {
	body := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
		"amiFamily":                  c.ResolvedAmiFamily(b.plan.DefaultAmiAlias),
	}
	b.roleOrProfile(body, c)
	if terms := amiTerms(c); len(terms) > 0 {
		body["amiSelectorTerms"] = terms
	}
	b.putClassTags(body, c)
	putClassCommon(body, c)
	return body
}

// awsNodeTemplateSpec renders the karpenter.k8s.aws/v1alpha1 AWSNodeTemplate: selectors are
// single maps (tags, or `aws-ids` listing ids), and the nodes' instance profile is the
// class's or, by default, the chart's settings.aws.defaultInstanceProfile.
func (b *builder) awsNodeTemplateSpec(c inputs.NodeClassSpec) map[string]any {
	body := map[string]any{
		"subnetSelector":        b.alphaSelector(alphaSubnetTerms(c)),
		"securityGroupSelector": b.alphaSelector(alphaSecurityGroupTerms(c)),
		"amiFamily":             c.ResolvedAmiFamily(b.plan.DefaultAmiAlias),
	}
	if c.InstanceProfile != nil {
		body["instanceProfile"] = c.InstanceProfile
	}
	if len(c.AmiSelectorTerms) > 0 {
		body["amiSelector"] = alphaAmiSelector(c.AmiSelectorTerms)
	}
	b.putClassTags(body, c)
	putBlockDevices(body, c.BlockDeviceMappings)
	putMetadataOptions(body, c.MetadataOptions)
	putString(body, "userData", c.UserData)
	putBool(body, "detailedMonitoring", c.DetailedMonitoring)
	putString(body, "context", c.Context)
	return body
}

// alphaTerm is a subnet or security group term reduced to what v1alpha1 can express.
type alphaTerm struct {
	id   pulumi.StringPtrInput
	tags map[string]string
}

func alphaSubnetTerms(c inputs.NodeClassSpec) []alphaTerm {
	var out []alphaTerm
	for _, t := range c.SubnetSelectorTerms {
		out = append(out, alphaTerm{t.Id, t.Tags})
	}
	return out
}

func alphaSecurityGroupTerms(c inputs.NodeClassSpec) []alphaTerm {
	var out []alphaTerm
	for _, t := range c.SecurityGroupSelectorTerms {
		out = append(out, alphaTerm{t.Id, t.Tags})
	}
	return out
}

// alphaSelector is a v1alpha1 selector: the discovery tag, one term's tags, or the ids of
// id-only terms joined into `aws-ids`.
func (b *builder) alphaSelector(terms []alphaTerm) any {
	if len(terms) == 0 {
		return map[string]any{catalog.DiscoveryTag: b.plan.Deferred.ClusterName}
	}
	if terms[0].tags != nil {
		out := map[string]any{}
		for k, v := range terms[0].tags {
			out[k] = v
		}
		return out
	}
	var ids []any
	for _, t := range terms {
		ids = append(ids, t.id)
	}
	return map[string]any{"aws-ids": pulumi.All(ids...).ApplyT(func(vals []any) string {
		parts := make([]string, 0, len(vals))
		for _, v := range vals {
			switch id := v.(type) {
			case string:
				parts = append(parts, id)
			case *string:
				if id != nil {
					parts = append(parts, *id)
				}
			}
		}
		return strings.Join(parts, ",")
	}).(pulumi.StringOutput)}
}

func alphaAmiSelector(terms []inputs.AmiSelectorTerm) map[string]any {
	out := map[string]any{}
	var ids []string
	for _, t := range terms {
		if t.Id != nil {
			ids = append(ids, *t.Id)
		}
		putString(out, "aws::name", t.Name)
		putString(out, "aws::owners", t.Owner)
		for k, v := range t.Tags {
			out[k] = v
		}
	}
	if len(ids) > 0 {
		out["aws-ids"] = strings.Join(ids, ",")
	}
	return out
}

// putClassTags sets a node class's tags: the component's tags (on everything the install leads to,
// the instances, volumes and launch templates Karpenter creates for the class included) under the
// class's own, which win. Changing either changes the class, which Karpenter treats as drift.
func (b *builder) putClassTags(body map[string]any, c inputs.NodeClassSpec) {
	if b.plan.Deferred.Tags == nil {
		putStringMap(body, "tags", c.Tags)
		return
	}
	own := c.Tags
	for _, v := range own {
		if inputs.IsUnknown(v) {
			// A class tag a preview does not know: the merged tags are unknown too.
			body["tags"] = pulumi.UnsafeUnknownOutput(nil)
			return
		}
	}
	body["tags"] = b.plan.Deferred.Tags.ToStringMapOutput().ApplyT(func(tags map[string]string) map[string]string {
		out := make(map[string]string, len(tags)+len(own))
		for k, v := range tags {
			out[k] = v
		}
		for k, v := range own {
			out[k] = v
		}
		return out
	}).(pulumi.StringMapOutput)
}

func putClassCommon(body map[string]any, c inputs.NodeClassSpec) {
	putBlockDevices(body, c.BlockDeviceMappings)
	putMetadataOptions(body, c.MetadataOptions)
	putString(body, "userData", c.UserData)
	putBool(body, "detailedMonitoring", c.DetailedMonitoring)
	putBool(body, "associatePublicIPAddress", c.AssociatePublicIPAddress)
	putString(body, "instanceStorePolicy", c.InstanceStorePolicy)
	putString(body, "context", c.Context)
}

func putBlockDevices(body map[string]any, mappings []inputs.BlockDeviceMapping) {
	if len(mappings) == 0 {
		return
	}
	out := []any{}
	for _, m := range mappings {
		mapping := map[string]any{}
		putString(mapping, "deviceName", m.DeviceName)
		putBool(mapping, "rootVolume", m.RootVolume)
		if e := m.Ebs; e != nil {
			ebs := map[string]any{}
			putString(ebs, "volumeSize", e.VolumeSize)
			putString(ebs, "volumeType", e.VolumeType)
			putInt(ebs, "iops", e.Iops)
			putInt(ebs, "throughput", e.Throughput)
			putBool(ebs, "encrypted", e.Encrypted)
			putString(ebs, "kmsKeyID", e.KmsKeyId)
			putBool(ebs, "deleteOnTermination", e.DeleteOnTermination)
			putString(ebs, "snapshotID", e.SnapshotId)
			putInt(ebs, "volumeInitializationRate", e.VolumeInitializationRate)
			mapping["ebs"] = ebs
		}
		out = append(out, mapping)
	}
	body["blockDeviceMappings"] = out
}

func putMetadataOptions(body map[string]any, m *inputs.MetadataOptions) {
	if m == nil {
		return
	}
	opts := map[string]any{}
	putString(opts, "httpEndpoint", m.HttpEndpoint)
	putString(opts, "httpProtocolIPv6", m.HttpProtocolIPv6)
	putInt(opts, "httpPutResponseHopLimit", m.HttpPutResponseHopLimit)
	putString(opts, "httpTokens", m.HttpTokens)
	body["metadataOptions"] = opts
}
