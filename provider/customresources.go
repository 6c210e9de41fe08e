package provider

import (
	"slices"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// The typed nodePools and nodeClasses render into the custom resources of the release's
// generation: NodePool/EC2NodeClass v1 or v1beta1, or Provisioner/AWSNodeTemplate. Fields a
// generation cannot express were rejected by validation, so rendering never drops a field.

// nodePoolSpec renders a pool; class is the node class it refers to (in v1beta1 and the
// Provisioner era the kubelet settings live on the pool, so they come from the class).
func (b *builder) nodePoolSpec(p NodePoolSpec, class NodeClassSpec) map[string]any {
	switch b.plan.release.name {
	case "v1alpha5":
		return b.provisionerSpec(p, class)
	case "v1beta1":
		return b.nodePoolSpecV1beta1(p, class)
	default:
		return b.nodePoolSpecV1(p)
	}
}

func (b *builder) nodeClassSpec(c NodeClassSpec) map[string]any {
	switch b.plan.release.name {
	case autoModeGeneration.name:
		return b.autoModeNodeClassSpec(c)
	case "v1alpha5":
		return b.awsNodeTemplateSpec(c)
	case "v1beta1":
		return b.nodeClassSpecV1beta1(c)
	default:
		return b.nodeClassSpecV1(c)
	}
}

// requirementsOf is a pool's requirements, or the release's defaults when it sets none.
func requirementsOf(p NodePoolSpec, r release) []Requirement {
	if len(p.Requirements) == 0 {
		_, defaults := r.poolDefaults()
		return defaults
	}
	return p.Requirements
}

// expireAfterOf is a pool's expireAfter, or the release's default.
func expireAfterOf(p NodePoolSpec, r release) string {
	expire, _ := r.poolDefaults()
	return deref(p.ExpireAfter, expire)
}

// nodePoolSpecV1 renders the karpenter.sh/v1 NodePool.
func (b *builder) nodePoolSpecV1(p NodePoolSpec) map[string]any {
	r := b.plan.release
	template := map[string]any{
		"nodeClassRef": map[string]any{"group": r.nodeClass.group(), "kind": r.nodeClass.kind, "name": deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(requirementsOf(p, b.plan.release)),
		"expireAfter":  expireAfterOf(p, b.plan.release),
	}
	putTaints(template, "taints", p.Taints)
	putTaints(template, "startupTaints", p.StartupTaints)
	putString(template, "terminationGracePeriod", p.TerminationGracePeriod)

	spec := map[string]any{"template": withMetadata(map[string]any{"spec": template}, p)}
	putStringMap(spec, "limits", p.Limits)
	putInt(spec, "weight", p.Weight)
	putInt(spec, "replicas", p.Replicas)

	d := deref(p.Disruption, Disruption{})
	// A static pool (replicas) ignores the consolidation settings; the defaults are written
	// anyway (before 1.15 the CRD requires consolidateAfter).
	disruption := map[string]any{
		"consolidationPolicy": string(deref(d.ConsolidationPolicy, defaultConsolidation)),
		"consolidateAfter":    deref(d.ConsolidateAfter, defaultConsolidateAfter),
	}
	putBudgets(disruption, d.Budgets, true)
	spec["disruption"] = disruption
	return spec
}

// nodePoolSpecV1beta1 renders the karpenter.sh/v1beta1 NodePool: expiry under disruption,
// kubelet on the pool, WhenUnderutilized instead of WhenEmptyOrUnderutilized (which takes no
// consolidateAfter).
func (b *builder) nodePoolSpecV1beta1(p NodePoolSpec, class NodeClassSpec) map[string]any {
	r := b.plan.release
	template := map[string]any{
		"nodeClassRef": map[string]any{"apiVersion": r.nodeClass.apiVersion, "kind": r.nodeClass.kind, "name": deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(requirementsOf(p, b.plan.release)),
	}
	putTaints(template, "taints", p.Taints)
	putTaints(template, "startupTaints", p.StartupTaints)
	if class.Kubelet != nil {
		template["kubelet"] = renderKubelet(class.Kubelet)
	}

	spec := map[string]any{"template": withMetadata(map[string]any{"spec": template}, p)}
	putStringMap(spec, "limits", p.Limits)
	putInt(spec, "weight", p.Weight)

	d := deref(p.Disruption, Disruption{})
	disruption := map[string]any{"expireAfter": expireAfterOf(p, b.plan.release)}
	if deref(d.ConsolidationPolicy, defaultConsolidation) == "WhenEmpty" {
		disruption["consolidationPolicy"] = "WhenEmpty"
		disruption["consolidateAfter"] = deref(d.ConsolidateAfter, defaultConsolidateAfter)
	} else {
		disruption["consolidationPolicy"] = "WhenUnderutilized"
	}
	putBudgets(disruption, d.Budgets, false)
	spec["disruption"] = disruption
	return spec
}

// provisionerSpec renders the karpenter.sh/v1alpha5 Provisioner: consolidation is a switch,
// emptiness and expiry are TTLs in seconds, limits sit under resources.
func (b *builder) provisionerSpec(p NodePoolSpec, class NodeClassSpec) map[string]any {
	spec := map[string]any{
		"providerRef":  map[string]any{"name": deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(requirementsOf(p, b.plan.release)),
	}
	putStringMap(spec, "labels", p.Labels)
	putStringMap(spec, "annotations", p.Annotations)
	putTaints(spec, "taints", p.Taints)
	putTaints(spec, "startupTaints", p.StartupTaints)
	if len(p.Limits) > 0 {
		resources := map[string]any{}
		putStringMap(resources, "resources", p.Limits)
		spec["limits"] = resources
	}
	putInt(spec, "weight", p.Weight)
	if expire := expireAfterOf(p, b.plan.release); expire != "Never" {
		spec["ttlSecondsUntilExpired"] = seconds(expire)
	}
	d := deref(p.Disruption, Disruption{})
	if deref(d.ConsolidationPolicy, defaultConsolidation) == "WhenEmpty" {
		if after := deref(d.ConsolidateAfter, defaultConsolidateAfter); after != "Never" {
			spec["ttlSecondsAfterEmpty"] = seconds(after)
		}
	} else {
		spec["consolidation"] = map[string]any{"enabled": true}
	}
	if class.Kubelet != nil {
		spec["kubeletConfiguration"] = renderKubelet(class.Kubelet)
	}
	return spec
}

// seconds converts a validated duration like 720h or 1m30s.
func seconds(d string) int {
	parsed, err := time.ParseDuration(d)
	if err != nil {
		panic("unvalidated duration " + d)
	}
	return int(parsed.Seconds())
}

func withMetadata(template map[string]any, p NodePoolSpec) map[string]any {
	metadata := map[string]any{}
	putStringMap(metadata, "labels", p.Labels)
	putStringMap(metadata, "annotations", p.Annotations)
	if len(metadata) > 0 {
		template["metadata"] = metadata
	}
	return template
}

func putBudgets(disruption map[string]any, budgets []Budget, withReasons bool) {
	if len(budgets) == 0 {
		return
	}
	out := make([]any, 0, len(budgets))
	for _, bu := range budgets {
		budget := map[string]any{"nodes": deref(bu.Nodes, "10%")}
		putString(budget, "schedule", bu.Schedule)
		putString(budget, "duration", bu.Duration)
		if withReasons && len(bu.Reasons) > 0 {
			budget["reasons"] = slices.Clone(bu.Reasons)
		}
		out = append(out, budget)
	}
	disruption["budgets"] = out
}

func renderRequirements(reqs []Requirement) []any {
	out := make([]any, 0, len(reqs))
	for _, r := range reqs {
		req := map[string]any{"key": r.Key, "operator": string(r.Operator)}
		if len(r.Values) > 0 {
			req["values"] = slices.Clone(r.Values)
		}
		putInt(req, "minValues", r.MinValues)
		out = append(out, req)
	}
	return out
}

// roleOrProfile is how a class's nodes get their IAM identity: the class's instance profile
// or role, or the component's node role.
func (b *builder) roleOrProfile(spec map[string]any, c NodeClassSpec) {
	switch {
	case c.InstanceProfile != nil:
		spec["instanceProfile"] = c.InstanceProfile
	case c.Role != nil:
		spec["role"] = c.Role
	default:
		spec["role"] = b.node.roleName
	}
}

// discoveryTerms select subnets or security groups by the cluster's discovery tag.
func (b *builder) discoveryTerms() []any {
	return []any{map[string]any{"tags": map[string]any{discoveryTag: b.args.ClusterName}}}
}

func (b *builder) subnetTerms(c NodeClassSpec) []any {
	if len(c.SubnetSelectorTerms) == 0 {
		return b.discoveryTerms()
	}
	var terms []any
	for _, t := range c.SubnetSelectorTerms {
		terms = append(terms, selectorTerm(t.Id, nil, t.Tags))
	}
	return terms
}

func (b *builder) securityGroupTerms(c NodeClassSpec) []any {
	if len(c.SecurityGroupSelectorTerms) == 0 {
		return b.discoveryTerms()
	}
	var terms []any
	for _, t := range c.SecurityGroupSelectorTerms {
		terms = append(terms, selectorTerm(t.Id, t.Name, t.Tags))
	}
	return terms
}

func amiTerms(c NodeClassSpec) []any {
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
func (b *builder) nodeClassSpecV1(c NodeClassSpec) map[string]any {
	spec := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
	}
	b.roleOrProfile(spec, c)
	terms := amiTerms(c)
	if len(terms) == 0 {
		terms = []any{map[string]any{"alias": deref(c.AmiAlias, b.plan.defaultAmiAlias)}}
	}
	spec["amiSelectorTerms"] = terms
	putString(spec, "amiFamily", c.AmiFamily)
	if c.Kubelet != nil {
		spec["kubelet"] = renderKubelet(c.Kubelet)
	}
	if c.EnclaveOptions != nil {
		spec["enclaveOptions"] = map[string]any{"enabled": c.EnclaveOptions.Enabled}
	}
	putCapacityReservationTerms(spec, c.CapacityReservationSelectorTerms)
	if s := c.PlacementGroupSelector; s != nil {
		selector := map[string]any{}
		putInput(selector, "name", s.Name)
		putInput(selector, "id", s.Id)
		spec["placementGroupSelector"] = selector
	}
	putNetworkInterfaces(spec, c.NetworkInterfaces)
	putInt(spec, "ipPrefixCount", c.IpPrefixCount)
	if t := c.ConnectionTracking; t != nil {
		tracking := map[string]any{}
		putInt(tracking, "tcpEstablishedTimeout", t.TcpEstablishedTimeout)
		putInt(tracking, "udpStreamTimeout", t.UdpStreamTimeout)
		putInt(tracking, "udpTimeout", t.UdpTimeout)
		spec["connectionTracking"] = tracking
	}
	if o := c.CpuOptions; o != nil {
		options := map[string]any{}
		putString(options, "nestedVirtualization", o.NestedVirtualization)
		spec["cpuOptions"] = options
	}
	b.putClassTags(spec, c)
	putClassCommon(spec, c)
	return spec
}

func putCapacityReservationTerms(spec map[string]any, terms []CapacityReservationSelectorTerm) {
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
	spec["capacityReservationSelectorTerms"] = out
}

func putNetworkInterfaces(spec map[string]any, interfaces []NetworkInterface) {
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
	spec["networkInterfaces"] = out
}

// nodeClassSpecV1beta1 renders the karpenter.k8s.aws/v1beta1 EC2NodeClass: AMIs come from
// amiFamily (an alias `<family>@latest` means that family's latest EKS-optimized AMI).
func (b *builder) nodeClassSpecV1beta1(c NodeClassSpec) map[string]any {
	spec := map[string]any{
		"subnetSelectorTerms":        b.subnetTerms(c),
		"securityGroupSelectorTerms": b.securityGroupTerms(c),
		"amiFamily":                  c.amiFamily(b.plan.defaultAmiAlias),
	}
	b.roleOrProfile(spec, c)
	if terms := amiTerms(c); len(terms) > 0 {
		spec["amiSelectorTerms"] = terms
	}
	b.putClassTags(spec, c)
	putClassCommon(spec, c)
	return spec
}

// awsNodeTemplateSpec renders the karpenter.k8s.aws/v1alpha1 AWSNodeTemplate: selectors are
// single maps (tags, or `aws-ids` listing ids), and the nodes' instance profile is the
// class's or, by default, the chart's settings.aws.defaultInstanceProfile.
func (b *builder) awsNodeTemplateSpec(c NodeClassSpec) map[string]any {
	spec := map[string]any{
		"subnetSelector":        b.alphaSelector(alphaSubnetTerms(c)),
		"securityGroupSelector": b.alphaSelector(alphaSecurityGroupTerms(c)),
		"amiFamily":             c.amiFamily(b.plan.defaultAmiAlias),
	}
	if c.InstanceProfile != nil {
		spec["instanceProfile"] = c.InstanceProfile
	}
	if len(c.AmiSelectorTerms) > 0 {
		spec["amiSelector"] = alphaAmiSelector(c.AmiSelectorTerms)
	}
	b.putClassTags(spec, c)
	putBlockDevices(spec, c.BlockDeviceMappings)
	putMetadataOptions(spec, c.MetadataOptions)
	putString(spec, "userData", c.UserData)
	putBool(spec, "detailedMonitoring", c.DetailedMonitoring)
	putString(spec, "context", c.Context)
	return spec
}

// alphaTerm is a subnet or security group term reduced to what v1alpha1 can express.
type alphaTerm struct {
	id   pulumi.StringPtrInput
	tags map[string]string
}

func alphaSubnetTerms(c NodeClassSpec) []alphaTerm {
	var out []alphaTerm
	for _, t := range c.SubnetSelectorTerms {
		out = append(out, alphaTerm{t.Id, t.Tags})
	}
	return out
}

func alphaSecurityGroupTerms(c NodeClassSpec) []alphaTerm {
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
		return map[string]any{discoveryTag: b.args.ClusterName}
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

func alphaAmiSelector(terms []AmiSelectorTerm) map[string]any {
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

// aliasFamilies maps an AMI alias family to its amiFamily name.
var aliasFamilies = map[string]string{
	"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
	"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
}

// putClassTags sets a node class's tags: the component's tags (on everything the install leads to,
// the instances, volumes and launch templates Karpenter creates for the class included) under the
// class's own, which win. Changing either changes the class, which Karpenter treats as drift.
func (b *builder) putClassTags(spec map[string]any, c NodeClassSpec) {
	if b.args.Tags == nil {
		putStringMap(spec, "tags", c.Tags)
		return
	}
	own := c.Tags
	spec["tags"] = b.args.Tags.ToStringMapOutput().ApplyT(func(tags map[string]string) map[string]string {
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

func putClassCommon(spec map[string]any, c NodeClassSpec) {
	putBlockDevices(spec, c.BlockDeviceMappings)
	putMetadataOptions(spec, c.MetadataOptions)
	putString(spec, "userData", c.UserData)
	putBool(spec, "detailedMonitoring", c.DetailedMonitoring)
	putBool(spec, "associatePublicIPAddress", c.AssociatePublicIPAddress)
	putString(spec, "instanceStorePolicy", c.InstanceStorePolicy)
	putString(spec, "context", c.Context)
}

func putBlockDevices(spec map[string]any, mappings []BlockDeviceMapping) {
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
	spec["blockDeviceMappings"] = out
}

func putMetadataOptions(spec map[string]any, m *MetadataOptions) {
	if m == nil {
		return
	}
	opts := map[string]any{}
	putString(opts, "httpEndpoint", m.HttpEndpoint)
	putString(opts, "httpProtocolIPv6", m.HttpProtocolIPv6)
	putInt(opts, "httpPutResponseHopLimit", m.HttpPutResponseHopLimit)
	putString(opts, "httpTokens", m.HttpTokens)
	spec["metadataOptions"] = opts
}

func renderKubelet(k *KubeletConfiguration) map[string]any {
	kubelet := map[string]any{}
	putInt(kubelet, "maxPods", k.MaxPods)
	putInt(kubelet, "podsPerCore", k.PodsPerCore)
	putStringMap(kubelet, "systemReserved", k.SystemReserved)
	putStringMap(kubelet, "kubeReserved", k.KubeReserved)
	putStringMap(kubelet, "evictionHard", k.EvictionHard)
	putStringMap(kubelet, "evictionSoft", k.EvictionSoft)
	putStringMap(kubelet, "evictionSoftGracePeriod", k.EvictionSoftGracePeriod)
	putInt(kubelet, "evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod)
	putInt(kubelet, "imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent)
	putInt(kubelet, "imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent)
	putBool(kubelet, "cpuCFSQuota", k.CpuCFSQuota)
	if len(k.ClusterDNS) > 0 {
		kubelet["clusterDNS"] = slices.Clone(k.ClusterDNS)
	}
	// Validation rejected keys that have a typed field, so nothing here overwrites one.
	for key, v := range k.AdditionalSettings {
		kubelet[key] = v
	}
	return kubelet
}

// selectorTerm renders a subnet or security group selector term; an id may be an Input
// (e.g. a subnet created in the same program).
func selectorTerm(id pulumi.StringPtrInput, name *string, tags map[string]string) map[string]any {
	term := map[string]any{}
	putInput(term, "id", id)
	putString(term, "name", name)
	putStringMap(term, "tags", tags)
	return term
}

// putString sets an optional string (or string enum) value.
func putString[T ~string](m map[string]any, key string, v *T) {
	if v != nil {
		m[key] = string(*v)
	}
}

// putInput sets an optional Input-typed value (e.g. an id created in the same program).
func putInput(m map[string]any, key string, v pulumi.StringPtrInput) {
	if v != nil {
		m[key] = v
	}
}

func putInt(m map[string]any, key string, v *int) {
	if v != nil {
		m[key] = *v
	}
}

func putBool(m map[string]any, key string, v *bool) {
	if v != nil {
		m[key] = *v
	}
}

func putStringMap(m map[string]any, key string, v map[string]string) {
	if len(v) > 0 {
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[k] = val
		}
		m[key] = out
	}
}

func putTaints(m map[string]any, key string, taints []Taint) {
	if len(taints) == 0 {
		return
	}
	out := make([]any, 0, len(taints))
	for _, t := range taints {
		taint := map[string]any{"key": t.Key, "effect": string(t.Effect)}
		putString(taint, "value", t.Value)
		out = append(out, taint)
	}
	m[key] = out
}
