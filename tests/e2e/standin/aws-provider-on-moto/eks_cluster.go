package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// aws:eks/cluster:Cluster — an EKS cluster as AWS keeps one. Not used by the component: the engine
// tests' programs declare the cluster the component installs Karpenter on, and the component's
// read functions (getCluster, ...) check its inputs against it.
//
// What is real: the cluster is created in moto's EKS (CreateCluster; moto's DescribeCluster is
// what the Karpenter controller reads), its IAM role is looked up in moto's IAM and its subnets in
// moto's EC2, and the cluster security group EKS creates is created in moto's EC2, in the
// cluster's VPC. moto 5.2.5's EKS keeps neither the access configuration, the compute, storage
// and upgrade configuration, an OIDC issuer of EKS's form, the VPC ID and cluster security group,
// nor a version update (it has no UpdateClusterVersion): those are kept in the stand-in's record
// (clusterRecord, $STANDIN_STATE_DIR/aws-eks.json), and the engine's output says so.
//
// Inputs as pulumi-aws 6.83.2 names them (eks/cluster.d.ts of the published @pulumi/aws 6.83.2);
// the schema, ForceNew flags and defaults are terraform-provider-aws's
// internal/service/eks/cluster.go (the stored copy at commit 00555dc5): name, role_arn,
// bootstrap_self_managed_addons, access_config.bootstrap_cluster_creator_admin_permissions
// (Default true), kubernetes_network_config.ip_family and .service_ipv4_cidr are ForceNew;
// version, tags, access_config.authentication_mode, vpc_config (endpoint access, public CIDRs,
// subnets, security groups), enabled_cluster_log_types, upgrade_policy, compute_config,
// storage_config, kubernetes_network_config.elastic_load_balancing and adding an
// encryption_config update in place; a CustomizeDiff replaces the cluster when encryption_config
// is removed or an existing compute_config.node_role_arn changes. force_update_version (in
// 6.83.2's inputs, not in that copy) is a plain Optional attribute in the later stored copy that
// has it. pulumi-eks sets name, roleArn, computeConfig, storageConfig, kubernetesNetworkConfig,
// bootstrapSelfManagedAddons, vpcConfig, version, enabledClusterLogTypes, tags, encryptionConfig,
// accessConfig and upgradePolicy (nodejs/eks/cluster/cluster.ts, `new aws.eks.Cluster`); its
// deletionProtection is a pulumi-aws 7 input, which 6.83.2 does not have.

var (
	clusterLogTypes     = []string{"api", "audit", "authenticator", "controllerManager", "scheduler"}
	authenticationModes = []string{"API", "API_AND_CONFIG_MAP", "CONFIG_MAP"}
	autoModeNodePools   = []string{"general-purpose", "system"}
	supportTypes        = []string{"EXTENDED", "STANDARD"}
	// validClusterName of internal/service/eks/validate.go: 1 to 100 characters, starting with a
	// letter or digit.
	clusterNameRE = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]*$`)
)

// defaultKubernetesVersion is the version of a cluster created without one. Real EKS picks its
// current default version; the stand-in picks the lab's API server's version (v1.33.3), or
// STANDIN_EKS_DEFAULT_VERSION.
const defaultKubernetesVersion = "1.33"

func init() {
	types["aws:eks/cluster:Cluster"] = &rtype{
		token: "aws:eks/cluster:Cluster",
		inputs: map[string]prop{
			"accessConfig": {kind: kObject, computed: true, fields: map[string]field{
				"authenticationMode":                      {kind: kString, computed: true},
				"bootstrapClusterCreatorAdminPermissions": {kind: kBool, forceNew: true, def: bv(true)},
			}},
			"bootstrapSelfManagedAddons": {kind: kBool, forceNew: true, def: bv(true)},
			"computeConfig": {kind: kObject, replaceIf: nodeRoleReplaced, fields: map[string]field{
				"enabled":     {kind: kBool},
				"nodePools":   {kind: kStringList, set: true},
				"nodeRoleArn": {kind: kString},
			}},
			"defaultAddonsToRemoves": {unsupported: true},
			"enabledClusterLogTypes": {kind: kStringList, set: true},
			"encryptionConfig": {kind: kObject, replaceIf: encryptionRemoved, fields: map[string]field{
				"provider":  {kind: kObject, required: true, fields: map[string]field{"keyArn": {kind: kString, required: true}}},
				"resources": {kind: kStringList, required: true, set: true},
			}},
			"forceUpdateVersion": {kind: kBool},
			"kubernetesNetworkConfig": {kind: kObject, computed: true, fields: map[string]field{
				"elasticLoadBalancing": {kind: kObject, computed: true, fields: map[string]field{"enabled": {kind: kBool, computed: true}}},
				"ipFamily":             {kind: kString, computed: true, forceNew: true},
				"serviceIpv4Cidr":      {kind: kString, computed: true, forceNew: true},
				"serviceIpv6Cidr":      {kind: kString, output: true},
			}},
			"name":                {kind: kString, forceNew: true, computed: true},
			"outpostConfig":       {unsupported: true},
			"remoteNetworkConfig": {unsupported: true},
			"roleArn":             {kind: kString, required: true, forceNew: true},
			"storageConfig": {kind: kObject, fields: map[string]field{
				"blockStorage": {kind: kObject, fields: map[string]field{"enabled": {kind: kBool}}},
			}},
			"tags": tagsProp,
			"upgradePolicy": {kind: kObject, computed: true, fields: map[string]field{
				"supportType": {kind: kString, computed: true},
			}},
			"version": {kind: kString, computed: true},
			"vpcConfig": {kind: kObject, required: true, fields: map[string]field{
				"clusterSecurityGroupId": {kind: kString, output: true},
				"endpointPrivateAccess":  {kind: kBool, def: bv(false)},
				"endpointPublicAccess":   {kind: kBool, def: bv(true)},
				"publicAccessCidrs":      {kind: kStringList, set: true, computed: true},
				"securityGroupIds":       {kind: kStringList, set: true},
				"subnetIds":              {kind: kStringList, set: true, required: true},
				"vpcId":                  {kind: kString, output: true},
			}},
			"zonalShiftConfig": {unsupported: true},
		},
		outputs: []string{"arn", "certificateAuthorities", "certificateAuthority", "clusterId", "createdAt", "endpoint",
			"identities", "platformVersion", "status"},
		tags:        true,
		autoname:    100,
		forPrograms: true,
		preview:     previewCluster,
		ops:         clusterOps,
	}
}

// nodeRoleReplaced: "only force new if an existing role has changed, not if a new role is added"
// (cluster.go's CustomizeDiff).
func nodeRoleReplaced(o, n resource.PropertyValue) bool {
	old := str(objectOf(o), "nodeRoleArn")
	return old != "" && old != str(objectOf(n), "nodeRoleArn")
}

// encryptionRemoved: "You cannot disable envelope encryption after enabling it. This action is
// irreversible." (cluster.go's CustomizeDiff).
func encryptionRemoved(o, n resource.PropertyValue) bool {
	return plain(o).IsObject() && !plain(n).IsObject()
}

func enumFailure(at, v string, allowed []string) *pulumirpc.CheckFailure {
	return failure(at, "expected %s to be one of %v, got %s", at, allowed, v)
}

// checkCluster adds the schema's ValidateFuncs and the Auto Mode CustomizeDiff.
func checkCluster(in pmap) []*pulumirpc.CheckFailure {
	var out []*pulumirpc.CheckFailure
	if v := str(in, "name"); v != "" && (len(v) > 100 || !clusterNameRE.MatchString(v)) {
		out = append(out, failure("name", "%q must be 1 to 100 characters: letters, digits, hyphens and underscores, starting with a letter or digit, got %q", "name", v))
	}
	if v := str(in, "roleArn"); v != "" && !strings.HasPrefix(v, "arn:") {
		out = append(out, failure("roleArn", "%q (%s) is an invalid ARN", "roleArn", v))
	}
	for _, v := range stringList(in, "enabledClusterLogTypes") {
		if !contains(clusterLogTypes, v) {
			out = append(out, enumFailure("enabledClusterLogTypes", v, clusterLogTypes))
		}
	}
	ac, cc, nc := objectOf(in["accessConfig"]), objectOf(in["computeConfig"]), objectOf(in["kubernetesNetworkConfig"])
	if v := str(ac, "authenticationMode"); v != "" && !contains(authenticationModes, v) {
		out = append(out, enumFailure("accessConfig.authenticationMode", v, authenticationModes))
	}
	for _, v := range stringList(cc, "nodePools") {
		if !contains(autoModeNodePools, v) {
			out = append(out, enumFailure("computeConfig.nodePools", v, autoModeNodePools))
		}
	}
	if v := str(nc, "ipFamily"); v != "" && v != "ipv4" && v != "ipv6" {
		out = append(out, enumFailure("kubernetesNetworkConfig.ipFamily", v, []string{"ipv4", "ipv6"}))
	}
	if v := str(nc, "serviceIpv4Cidr"); v != "" {
		if _, n, err := net.ParseCIDR(v); err != nil || n.String() != v {
			out = append(out, failure("kubernetesNetworkConfig.serviceIpv4Cidr", "%q is not a valid CIDR network: %s", "kubernetesNetworkConfig.serviceIpv4Cidr", v))
		} else if ones, _ := n.Mask.Size(); ones < 12 || ones > 24 {
			out = append(out, failure("kubernetesNetworkConfig.serviceIpv4Cidr", "expected %q to contain a network CIDR with between 12 and 24 significant bits, got: %s", "kubernetesNetworkConfig.serviceIpv4Cidr", v))
		}
	}
	if v := str(objectOf(in["upgradePolicy"]), "supportType"); v != "" && !contains(supportTypes, v) {
		out = append(out, enumFailure("upgradePolicy.supportType", v, supportTypes))
	}
	for _, v := range stringList(objectOf(in["encryptionConfig"]), "resources") {
		if v != "secrets" {
			out = append(out, enumFailure("encryptionConfig.resources", v, []string{"secrets"}))
		}
	}
	for _, v := range stringList(objectOf(in["vpcConfig"]), "publicAccessCidrs") {
		if _, _, err := net.ParseCIDR(v); err != nil {
			out = append(out, failure("vpcConfig.publicAccessCidrs", "%q is not a valid CIDR network address: %s", "vpcConfig.publicAccessCidrs", v))
		}
	}
	// validateAutoModeCustomizeDiff, once the three settings are known (a block that is unknown as a
	// whole, in a preview, hides its setting).
	compute, elb, storage := cc["enabled"], objectOf(nc["elasticLoadBalancing"])["enabled"], objectOf(objectOf(in["storageConfig"])["blockStorage"])["enabled"]
	if !unknown(in["computeConfig"]) && !unknown(in["kubernetesNetworkConfig"]) && !unknown(in["storageConfig"]) {
		on := func(v resource.PropertyValue) bool { v = plain(v); return v.IsBool() && v.BoolValue() }
		if on(compute) != on(elb) || on(compute) != on(storage) {
			out = append(out, failure("computeConfig", "compute_config.enabled, kubernetes_networking_config.elastic_load_balancing.enabled, and storage_config.block_storage.enabled must all be set to either true or false"))
		}
	}
	return out
}

// previewCluster: in a preview of a create, what EKS computes inside the blocks is unknown.
func previewCluster(in, outs pmap) {
	fill := func(key string, computed []string, defaults pmap) {
		v := plain(in[resource.PropertyKey(key)])
		if !v.IsObject() {
			return
		}
		o := v.ObjectValue().Copy()
		for _, k := range computed {
			if !has(o, k) {
				o[resource.PropertyKey(k)] = unknownValue()
			}
		}
		for k, d := range defaults {
			if !has(o, string(k)) {
				o[k] = d
			}
		}
		outs[resource.PropertyKey(key)] = resource.NewObjectProperty(o)
	}
	fill("vpcConfig", []string{"clusterSecurityGroupId", "publicAccessCidrs", "vpcId"},
		pmap{"endpointPrivateAccess": bv(false), "endpointPublicAccess": bv(true)})
	fill("accessConfig", []string{"authenticationMode"}, pmap{"bootstrapClusterCreatorAdminPermissions": bv(true)})
	fill("kubernetesNetworkConfig", []string{"ipFamily", "serviceIpv4Cidr", "serviceIpv6Cidr"}, nil)
	fill("upgradePolicy", []string{"supportType"}, nil)
}

// apiError is an AWS API refusal as the AWS SDK for Go v2 prints it (smithy's OperationError
// around the HTTP response error), which terraform puts after what it was doing.
func apiError(service, op string, status int, code, msg string) string {
	return fmt.Sprintf("operation error %s: %s, https response error StatusCode: %d, RequestID: %s, %s: %s",
		service, op, status, uuidLike(), code, msg)
}

// upperHex is n random upper-case hex digits (EKS's cluster IDs in endpoints and OIDC issuers).
func upperHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return strings.ToUpper(fmt.Sprintf("%x", b))[:n]
}

func randomDigits(n int) string {
	var sb strings.Builder
	for range n {
		d, _ := rand.Int(rand.Reader, big.NewInt(10))
		sb.WriteString(d.String())
	}
	return sb.String()
}

// defaultServiceCIDR is the service CIDR of a cluster created without one: "If you don't specify a
// block, Kubernetes assigns addresses from either the 10.100.0.0/16 or 172.20.0.0/16 CIDR blocks"
// (EKS API reference, KubernetesNetworkConfigRequest.serviceIpv4Cidr) — the one that does not
// overlap the VPC: 172.20.0.0/16 for a VPC in 10.0.0.0/8, else 10.100.0.0/16.
func defaultServiceCIDR(vpcCIDR string) string {
	if _, n, err := net.ParseCIDR(vpcCIDR); err == nil {
		if _, ten, _ := net.ParseCIDR("10.0.0.0/8"); ten.Contains(n.IP) {
			return "172.20.0.0/16"
		}
	}
	return "10.100.0.0/16"
}

// clusterSecurityGroupDescription is the description of the security group EKS creates.
const clusterSecurityGroupDescription = "EKS created security group applied to ENI that is attached to EKS Control Plane master nodes, as well as any managed workloads."

var clusterOps = ops{
	check:  checkCluster,
	create: createCluster,
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		v, err := c.p.clusterView(ctx, id)
		if v == nil || err != nil {
			return nil, err
		}
		return clusterOutputs(v, in), nil
	},
	update: updateCluster,
	delete: deleteCluster,
}

func createCluster(ctx context.Context, c *call, in pmap) (string, error) {
	name := str(in, "name")
	fail := func(status int, code, msg string) (string, error) {
		return "", fmt.Errorf("creating EKS Cluster (%s): %s", name, apiError("EKS", "CreateCluster", status, code, msg))
	}
	// EKS checks the role (terraform retries "does not exist" for IAM's propagation; moto has none
	// to wait for, so the stand-in answers at once).
	roleArn := str(in, "roleArn")
	if ok, err := roleExists(ctx, c, roleArn); err != nil {
		return "", err
	} else if !ok {
		return fail(400, "InvalidParameterException", fmt.Sprintf("roleArn, %s, does not exist", roleArn))
	}
	vc := objectOf(in["vpcConfig"])
	vpcID, err := c.subnetsVPC(ctx, name, "CreateCluster", stringList(vc, "subnetIds"))
	if err != nil {
		return "", err
	}

	// The EKS API's defaults (CreateAccessConfigRequest): CONFIG_MAP, and admin permissions for the
	// cluster's creator.
	ac := objectOf(in["accessConfig"])
	mode := strOr(ac, "authenticationMode", "CONFIG_MAP")
	bootstrap := true
	if b, ok := boolean(ac, "bootstrapClusterCreatorAdminPermissions"); ok {
		bootstrap = b
	}
	if !bootstrap && mode == "CONFIG_MAP" {
		return fail(400, "InvalidParameterException", "bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to CONFIG_MAP")
	}
	version := strOr(in, "version", c.p.env.eksDefaultVersion)
	if version == "" {
		version = defaultKubernetesVersion
	}
	nc := objectOf(in["kubernetesNetworkConfig"])
	ipFamily, serviceCIDR, serviceIPv6 := strOr(nc, "ipFamily", "ipv4"), str(nc, "serviceIpv4Cidr"), ""
	if ipFamily == "ipv6" {
		// "Kubernetes assigns services IPv6 addresses from the unique local address range (fc00::/7)".
		serviceIPv6 = fmt.Sprintf("fd%s:%s:%s::/108", strings.ToLower(upperHex(2)), strings.ToLower(upperHex(4)), strings.ToLower(upperHex(4)))
		serviceCIDR = ""
	} else if serviceCIDR == "" {
		vpcs, err := c.aws().ec2.describeVpcs(ctx, []string{vpcID}, nil)
		if err != nil {
			return "", fmt.Errorf("creating EKS Cluster (%s): %w", name, err)
		}
		if len(vpcs) > 0 {
			serviceCIDR = defaultServiceCIDR(vpcs[0].CidrBlock)
		}
	}
	input := &eks.CreateClusterInput{
		Name:                       aws.String(name),
		RoleArn:                    aws.String(roleArn),
		Version:                    aws.String(version),
		ResourcesVpcConfig:         vpcConfigRequest(vc),
		AccessConfig:               &ekstypes.CreateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationMode(mode), BootstrapClusterCreatorAdminPermissions: aws.Bool(bootstrap)},
		BootstrapSelfManagedAddons: aws.Bool(boolOr(in, "bootstrapSelfManagedAddons", true)),
		KubernetesNetworkConfig:    &ekstypes.KubernetesNetworkConfigRequest{IpFamily: ekstypes.IpFamily(ipFamily)},
		Logging:                    loggingRequest(stringList(in, "enabledClusterLogTypes")),
		Tags:                       stringMap(in, "tags"),
	}
	if serviceCIDR != "" {
		input.KubernetesNetworkConfig.ServiceIpv4Cidr = aws.String(serviceCIDR)
	}
	if v, ok := boolean(objectOf(nc["elasticLoadBalancing"]), "enabled"); ok {
		input.KubernetesNetworkConfig.ElasticLoadBalancing = &ekstypes.ElasticLoadBalancing{Enabled: aws.Bool(v)}
	}
	if cc := objectOf(in["computeConfig"]); len(cc) > 0 {
		input.ComputeConfig = &ekstypes.ComputeConfigRequest{NodePools: stringList(cc, "nodePools")}
		if v, ok := boolean(cc, "enabled"); ok {
			input.ComputeConfig.Enabled = aws.Bool(v)
		}
		if v := str(cc, "nodeRoleArn"); v != "" {
			input.ComputeConfig.NodeRoleArn = aws.String(v)
		}
	}
	if v, ok := boolean(objectOf(objectOf(in["storageConfig"])["blockStorage"]), "enabled"); ok {
		input.StorageConfig = &ekstypes.StorageConfigRequest{BlockStorage: &ekstypes.BlockStorage{Enabled: aws.Bool(v)}}
	}
	if ec := objectOf(in["encryptionConfig"]); len(ec) > 0 {
		input.EncryptionConfig = []ekstypes.EncryptionConfig{{
			Provider:  &ekstypes.Provider{KeyArn: aws.String(str(objectOf(ec["provider"]), "keyArn"))},
			Resources: stringList(ec, "resources"),
		}}
	}
	if v := str(objectOf(in["upgradePolicy"]), "supportType"); v != "" {
		input.UpgradePolicy = &ekstypes.UpgradePolicyRequest{SupportType: ekstypes.SupportType(v)}
	}
	if _, err := c.aws().eks.CreateCluster(ctx, input); err != nil {
		return "", fmt.Errorf("creating EKS Cluster (%s): %w", name, err)
	}

	// EKS creates the cluster security group in the cluster's VPC ("eks-cluster-sg-<name>-<unique
	// ID>", inbound from itself, outbound anywhere) and tags it (EKS User Guide, "View Amazon EKS
	// security group requirements for clusters", sec-group-reqs.html).
	sgName := fmt.Sprintf("eks-cluster-sg-%s-%s", name, randomDigits(10))
	sg, err := c.aws().ec2.createSecurityGroup(ctx, sgName, clusterSecurityGroupDescription, vpcID, map[string]string{
		"Name": sgName, "aws:eks:cluster-name": name, "kubernetes.io/cluster/" + name: "owned",
	})
	if err == nil {
		err = c.aws().ec2.allowSelf(ctx, sg)
	}
	if err != nil {
		return name, fmt.Errorf("creating EKS Cluster (%s): the cluster security group: %w", name, err)
	}

	issuer := c.p.env.eksOIDCIssuer
	if issuer == "" {
		issuer = fmt.Sprintf("https://oidc.eks.%s.amazonaws.com/id/%s", c.region(), upperHex(32))
	}
	rec := &clusterRecord{
		Name: name, Version: version, VpcID: vpcID, ClusterSecurityGroupID: sg,
		OIDCIssuer:         issuer,
		Endpoint:           c.p.env.eksEndpoint,
		CertificateData:    c.p.env.eksCAData,
		AuthenticationMode: mode, BootstrapClusterCreatorAdminPermissions: bootstrap,
		IPFamily: ipFamily, ServiceIPv6CIDR: serviceIPv6,
		UpgradeSupportType: strOr(objectOf(in["upgradePolicy"]), "supportType", "EXTENDED"),
	}
	rec.setConfig(in)
	err = c.p.eks.with(true, func(r *eksRecord) error { r.Clusters[name] = rec; return nil })
	if err != nil {
		return name, err
	}
	c.note(ctx, fmt.Sprintf("created %s %s in moto's EKS and EC2 (its security group %s); recorded in memory: what moto's EKS lacks (access, compute, storage and upgrade configuration, OIDC issuer, endpoint, VPC, security group, version updates) (%s)",
		c.typ.token, c.urn.Name(), sg, standIn))
	return name, nil
}

// vpcConfigRequest is the EKS request of a vpcConfig block, with terraform's defaults and EKS's
// (every address may reach a public endpoint).
func vpcConfigRequest(vc pmap) *ekstypes.VpcConfigRequest {
	cidrs := stringList(vc, "publicAccessCidrs")
	if len(cidrs) == 0 {
		cidrs = []string{"0.0.0.0/0"}
	}
	return &ekstypes.VpcConfigRequest{
		SubnetIds:             stringList(vc, "subnetIds"),
		SecurityGroupIds:      stringList(vc, "securityGroupIds"),
		EndpointPrivateAccess: aws.Bool(boolOr(vc, "endpointPrivateAccess", false)),
		EndpointPublicAccess:  aws.Bool(boolOr(vc, "endpointPublicAccess", true)),
		PublicAccessCidrs:     cidrs,
	}
}

// loggingRequest is terraform's expandLogging: the enabled types, and every other type disabled.
func loggingRequest(enabled []string) *ekstypes.Logging {
	var on, off []ekstypes.LogType
	for _, t := range clusterLogTypes {
		if contains(enabled, t) {
			on = append(on, ekstypes.LogType(t))
		} else {
			off = append(off, ekstypes.LogType(t))
		}
	}
	return &ekstypes.Logging{ClusterLogging: []ekstypes.LogSetup{
		{Enabled: aws.Bool(true), Types: on}, {Enabled: aws.Bool(false), Types: off},
	}}
}

// note tells the engine's output (and stderr) what the stand-in did beside moto.
func (c *call) note(ctx context.Context, msg string) {
	logf("%s", msg)
	if c.p.host != nil {
		_ = c.p.host.Log(ctx, diag.Info, c.urn, msg)
	}
}
