package main

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"
)

// What pulumi-eks 4.3.0's Cluster registers (nodejs/eks/cluster/cluster.ts: createCore, then
// createCluster's createNodeGroupSecurityGroup, nodes/securitygroup.ts), for the inputs the
// stand-in implements, in its order and with its names (so the URNs are pulumi-eks's), each
// parented as there:
//
//	aws getPartition; without vpcId, aws getVpc {default: true} and getSubnets {vpc-id}
//	eks:index:ServiceRole ${name}-eksRole: aws:iam/role:Role ${name}-eksRole-role (trusting
//	    eks.amazonaws.com, 3.9.1 eks.<dnsSuffix>, with sts:AssumeRole and sts:TagSession) and the
//	    AmazonEKSClusterPolicy attachment ${name}-eksRole-<sha1(policy id)[:8]>
//	aws:ec2/securityGroup:SecurityGroup ${name}-eksClusterSecurityGroup (tags {Name,
//	    ...clusterSecurityGroupTags}) and its aws:ec2/securityGroupRule:SecurityGroupRule
//	    ${name}-eksClusterInternetEgressRule — not with Auto Mode
//	Auto Mode: the cluster role also gets AmazonEKSComputePolicy, -BlockStoragePolicy,
//	    -LoadBalancingPolicy and -NetworkingPolicy; eks:index:ServiceRole ${name}-nodeRole
//	    (ec2.amazonaws.com; AmazonEKSWorkerNodeMinimalPolicy, AmazonEC2ContainerRegistryPullOnly)
//	    unless autoMode.createNodeRole is false
//	aws:eks/cluster:Cluster ${name}-eksCluster (auto-named unless name; roleArn, vpcConfig
//	    {securityGroupIds, subnetIds}, version when given, accessConfig only when
//	    authenticationMode is given, tags {Name}, bootstrapSelfManagedAddons true (3.9.1: unset);
//	    with Auto Mode no securityGroupIds, bootstrapSelfManagedAddons false, computeConfig
//	    {enabled, the node role, nodePools general-purpose and system}, storageConfig and
//	    kubernetesNetworkConfig {ipFamily ipv4, elasticLoadBalancing}; ignoreChanges and dependsOn
//	    as pulumi-eks's)
//	pulumi:providers:kubernetes ${name}-eks-k8s, from the kubeconfig
//	eks:index:ServiceRole ${name}-instanceRole (ec2.amazonaws.com; AmazonEKSWorkerNodePolicy,
//	    AmazonEKS_CNI_Policy, AmazonEC2ContainerRegistryReadOnly) and
//	    aws:iam/instanceProfile:InstanceProfile ${name}-instanceProfile
//	CONFIG_MAP and API_AND_CONFIG_MAP (unset: CONFIG_MAP): kubernetes:core/v1:ConfigMap
//	    ${name}-nodeAccess, kube-system/aws-auth with roleMappings and the instance role in mapRoles
//	API and API_AND_CONFIG_MAP: aws:eks/accessEntry:AccessEntry
//	    ${name}-defaultNodeGroupInstanceRole (EC2_LINUX, the instance role), then per accessEntries
//	    key an AccessEntry ${name}-<key> and, under it, per access policy an
//	    aws:eks/accessPolicyAssociation:AccessPolicyAssociation ${name}-<key>-<policy> (cluster_access.go)
//	createOidcProvider: aws getRegion; aws:iam/openIdConnectProvider:OpenIdConnectProvider
//	    ${name}-oidcProvider (the cluster's issuer, sts.amazonaws.com, a thumbprint)
//	aws:ec2/securityGroup:SecurityGroup ${name}-nodeSecurityGroup (tags {Name,
//	    kubernetes.io/cluster/<cluster name>: owned, ...nodeSecurityGroupTags}) and its rules
//	    ${name}-eksNodeIngressRule, -eksNodeClusterIngressRule, -eksExtApiServerClusterIngressRule,
//	    -eksNodeInternetEgressRule, -eksClusterIngressRule (on the cluster security group)
//	    — not with Auto Mode, whose clusterSecurityGroupId and nodeSecurityGroupId outputs are
//	    the security group EKS made for the cluster
//
// Not registered (main.go says why): the default node group (createNodeGroupV2's launch template
// and autoscaling group), the kube-proxy, CoreDNS and VPC CNI add-ons. pulumi-eks 3.9.1 registers
// the same but for what versions.go says (rel), at @pulumi/aws 6.79.1.

// eksThumbprint is the SHA-1 thumbprint IAM OIDC providers for EKS issuers commonly carry (the
// root CA of oidc.eks.<region>.amazonaws.com's chain, as AWS's documentation and examples show
// it). pulumi-eks reads it from the issuer's TLS chain, which this machine cannot reach.
const eksThumbprint = "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"

// Resource states: the outputs the construct reads.
type (
	cluster struct {
		pulumi.CustomResourceState
		Name                 pulumi.StringOutput    `pulumi:"name"`
		Arn                  pulumi.StringOutput    `pulumi:"arn"`
		Endpoint             pulumi.StringOutput    `pulumi:"endpoint"`
		CertificateAuthority pulumi.StringMapOutput `pulumi:"certificateAuthority"`
		Identities           pulumi.ArrayOutput     `pulumi:"identities"`
		VpcConfig            pulumi.MapOutput       `pulumi:"vpcConfig"`
	}
	role struct {
		pulumi.CustomResourceState
		Arn  pulumi.StringOutput `pulumi:"arn"`
		Name pulumi.StringOutput `pulumi:"name"`
	}
	custom struct {
		pulumi.CustomResourceState
	}
	rule struct {
		pulumi.CustomResourceState
		SecurityGroupRuleID pulumi.StringOutput `pulumi:"securityGroupRuleId"`
	}
	oidcProvider struct {
		pulumi.CustomResourceState
		Arn pulumi.StringOutput `pulumi:"arn"`
	}
	component struct {
		pulumi.ResourceState
	}
)

type builder struct {
	ctx  *pulumi.Context
	name string
	comp *component
	// partition and dnsSuffix are getPartition's (the managed policies' ARNs, the trust principals).
	partition, dnsSuffix string
}

// aws registers an aws resource under parent (the program's aws provider comes with it, as
// pulumi-eks's children inherit it).
func (b *builder) aws(typ, name string, props pulumi.Map, res pulumi.CustomResource, parent pulumi.Resource, opts ...pulumi.ResourceOption) error {
	opts = append([]pulumi.ResourceOption{pulumi.Parent(parent), pulumi.Version(rel.awsChildVersion)}, opts...)
	if err := b.ctx.RegisterResource(typ, name, props, res, opts...); err != nil {
		return fmt.Errorf("registering %s %s: %w", typ, name, err)
	}
	return nil
}

func (b *builder) invoke(tok string, args, result any) error {
	if err := b.ctx.Invoke(tok, args, result, pulumi.Parent(b.comp), pulumi.Version(rel.awsChildVersion)); err != nil {
		return fmt.Errorf("%s: %w", tok, err)
	}
	return nil
}

// serviceRole is pulumi-eks's ServiceRole component (servicerole.ts): a role trusting a service
// ("eks", "ec2": its principal as rel writes it) and its managed policies' attachments, named
// <name>-<first 8 hex of sha1(policy id)>.
func (b *builder) serviceRole(name, service, description string, actions, policies []string) (*role, []pulumi.Resource, error) {
	sr := &component{}
	if err := b.ctx.RegisterComponentResource("eks:index:ServiceRole", name, sr, pulumi.Parent(b.comp)); err != nil {
		return nil, nil, err
	}
	// JSON.stringify of pulumi-eks's object literal: its key order.
	quoted := make([]string, len(actions))
	for i, a := range actions {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Action":[%s],"Effect":"Allow","Principal":{"Service":[%q]}}]}`,
		strings.Join(quoted, ","), rel.servicePrincipal(service, b.dnsSuffix))
	props := pulumi.Map{"assumeRolePolicy": pulumi.String(policy)}
	if description != "" {
		props["description"] = pulumi.String(description)
	}
	r := &role{}
	if err := b.aws("aws:iam/role:Role", name+"-role", props, r, sr); err != nil {
		return nil, nil, err
	}
	deps := []pulumi.Resource{r}
	for _, p := range policies {
		id := "arn:aws:iam::aws:policy/" + p
		sum := sha1.Sum([]byte(id))
		a := &custom{}
		if err := b.aws("aws:iam/rolePolicyAttachment:RolePolicyAttachment", name+"-"+hex.EncodeToString(sum[:])[:8], pulumi.Map{
			"policyArn": pulumi.String("arn:" + b.partition + ":iam::aws:policy/" + p),
			"role":      r.ID().ToStringOutput(), // a Role passed as a string input is its ID (its name)
		}, a, sr); err != nil {
			return nil, nil, err
		}
		deps = append(deps, a)
	}
	if err := b.ctx.RegisterResourceOutputs(sr, pulumi.Map{}); err != nil {
		return nil, nil, err
	}
	return r, deps, nil
}

func (b *builder) securityGroupRule(name string, props pulumi.Map) (*rule, error) {
	r := &rule{}
	return r, b.aws("aws:ec2/securityGroupRule:SecurityGroupRule", name, props, r, b.comp)
}

// construct registers the cluster component and what pulumi-eks registers under it, and returns
// its outputs with pulumi-eks's names.
func construct(ctx *pulumi.Context, name string, args clusterArgs, inputs pprovider.ConstructInputs,
	options pulumi.ResourceOption, kubeconfigPath string,
) (*pprovider.ConstructResult, error) {
	in, err := inputs.Map()
	if err != nil {
		return nil, err
	}
	b := &builder{ctx: ctx, name: name, comp: &component{}}
	if err := ctx.RegisterComponentResource(clusterType, name, b.comp, options); err != nil {
		return nil, err
	}
	notApplied := ""
	if len(args.defaultNodeGroup) > 0 {
		notApplied = " (" + strings.Join(args.defaultNodeGroup, ", ") + " not applied)"
	}
	_ = ctx.Log.Info(fmt.Sprintf("%s %s is constructed by the %s: no default node group%s (the world's system nodes stand for it), "+
		"no kube-proxy, CoreDNS or VPC CNI add-on, a kubeconfig with the world's credentials", clusterType, name, standIn, notApplied),
		&pulumi.LogArgs{Resource: b.comp})

	var partition struct {
		Partition string `pulumi:"partition"`
		DNSSuffix string `pulumi:"dnsSuffix"`
	}
	if err := b.invoke("aws:index/getPartition:getPartition", struct{}{}, &partition); err != nil {
		return nil, err
	}
	b.partition, b.dnsSuffix = partition.Partition, partition.DNSSuffix
	vpcID, subnetIDs, err := b.network(in)
	if err != nil {
		return nil, err
	}

	clusterPolicies := []string{"AmazonEKSClusterPolicy"}
	if args.autoMode {
		// What Auto Mode needs of the cluster role (cluster.ts:517-529).
		clusterPolicies = append(clusterPolicies, autoModeClusterPolicies...)
	}
	eksRole, eksRoleDeps, err := b.serviceRole(name+"-eksRole", "eks", "Allows EKS to manage clusters on your behalf.",
		[]string{"sts:AssumeRole", "sts:TagSession"}, clusterPolicies)
	if err != nil {
		return nil, err
	}
	clusterProps := pulumi.Map{
		"roleArn":   eksRole.Arn,
		"vpcConfig": pulumi.Map{"subnetIds": subnetIDs},
		"tags":      pulumi.StringMap{"Name": pulumi.String(name + "-eksCluster")},
	}
	if args.autoMode || rel.bootstrapAddons {
		// false with Auto Mode (cluster.ts:698); otherwise true, or unset (rel.bootstrapAddons).
		clusterProps["bootstrapSelfManagedAddons"] = pulumi.Bool(!args.autoMode)
	}
	// Auto Mode skips the default security groups (cluster.ts:548, 2120): the cluster's own
	// security group, which EKS makes, is the one nodes and the API server share.
	var clusterSG *custom
	if !args.autoMode {
		clusterSG = &custom{}
		if err := b.aws("aws:ec2/securityGroup:SecurityGroup", name+"-eksClusterSecurityGroup", pulumi.Map{
			"vpcId": vpcID, "revokeRulesOnDelete": pulumi.Bool(true),
			"tags": pulumi.All(inputOr(in, "clusterSecurityGroupTags")).ApplyT(func(v []any) (map[string]string, error) {
				tags, err := stringMapOf("clusterSecurityGroupTags", v[0])
				return clusterSecurityGroupTags(name, tags), err
			}).(pulumi.StringMapOutput),
		}, clusterSG, b.comp); err != nil {
			return nil, err
		}
		if _, err := b.securityGroupRule(name+"-eksClusterInternetEgressRule", pulumi.Map{
			"description": pulumi.String("Allow internet access."), "type": pulumi.String("egress"),
			"fromPort": pulumi.Int(0), "toPort": pulumi.Int(0), "protocol": pulumi.String("-1"),
			"cidrBlocks": pulumi.StringArray{pulumi.String("0.0.0.0/0")}, "securityGroupId": clusterSG.ID().ToStringOutput(),
		}); err != nil {
			return nil, err
		}
		clusterProps["vpcConfig"].(pulumi.Map)["securityGroupIds"] = pulumi.StringArray{clusterSG.ID().ToStringOutput()}
	}
	autoModeNodeRoleName := pulumi.String("").ToStringOutput()
	if args.autoMode {
		nodeRole, nodeRoleDeps, err := b.autoMode(clusterProps, args)
		if err != nil {
			return nil, err
		}
		if nodeRole != nil {
			autoModeNodeRoleName = nodeRole.Name
		}
		eksRoleDeps = append(eksRoleDeps, nodeRoleDeps...)
	}
	for _, k := range []string{"name", "version"} {
		if v, ok := in[k]; ok {
			clusterProps[k] = v
		}
	}
	if args.authenticationMode != "" {
		clusterProps["accessConfig"] = pulumi.Map{
			"authenticationMode":                      pulumi.String(args.authenticationMode),
			"bootstrapClusterCreatorAdminPermissions": pulumi.Bool(true),
		}
	}
	eksCluster := &cluster{}
	if err := b.aws("aws:eks/cluster:Cluster", name+"-eksCluster", clusterProps, eksCluster, b.comp,
		pulumi.IgnoreChanges([]string{"accessConfig.bootstrapClusterCreatorAdminPermissions", "bootstrapSelfManagedAddons"}),
		pulumi.DependsOn(eksRoleDeps)); err != nil {
		return nil, err
	}

	kubeconfig, err := kubeconfigOf(eksCluster, kubeconfigPath)
	if err != nil {
		return nil, err
	}
	kubeconfigJSON := kubeconfig.ApplyT(func(k map[string]any) (string, error) {
		data, err := json.Marshal(k)
		return string(data), err
	}).(pulumi.StringOutput)
	k8s := &pulumi.ProviderResourceState{}
	if err := ctx.RegisterResource("pulumi:providers:kubernetes", name+"-eks-k8s", pulumi.Map{"kubeconfig": kubeconfigJSON}, k8s,
		pulumi.Parent(b.comp), pulumi.Version(rel.kubernetesChildVersion)); err != nil {
		return nil, err
	}

	instanceRole, instanceRoleDeps, err := b.serviceRole(name+"-instanceRole", "ec2", "", []string{"sts:AssumeRole"},
		[]string{"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly"})
	if err != nil {
		return nil, err
	}
	instanceProfile := &custom{}
	if err := b.aws("aws:iam/instanceProfile:InstanceProfile", name+"-instanceProfile", pulumi.Map{
		"role": instanceRole.ID().ToStringOutput(),
	}, instanceProfile, b.comp, pulumi.DependsOn(instanceRoleDeps)); err != nil {
		return nil, err
	}

	core := pulumi.Map{}
	if args.supportsConfigMap() {
		nodeAccess := &custom{}
		if err := ctx.RegisterResource("kubernetes:core/v1:ConfigMap", name+"-nodeAccess", pulumi.Map{
			"apiVersion": pulumi.String("v1"), "kind": pulumi.String("ConfigMap"), "immutable": pulumi.Bool(false),
			"metadata": pulumi.Map{
				"name": pulumi.String("aws-auth"), "namespace": pulumi.String("kube-system"),
				"annotations": pulumi.StringMap{"pulumi.com/patchForce": pulumi.String("true")},
			},
			"data": pulumi.StringMap{"mapRoles": mapRoles(in["roleMappings"], instanceRole.Arn)},
		}, nodeAccess, pulumi.Parent(b.comp), pulumi.Provider(k8s), pulumi.Version(rel.kubernetesChildVersion)); err != nil {
			return nil, err
		}
		core["eksNodeAccess"] = pulumi.NewResourceOutput(nodeAccess)
	}
	// core.accessEntries: the entries created, [] in CONFIG_MAP mode (cluster.ts:1028, 1288).
	createdEntries := pulumi.Array{}
	if args.supportsAccessEntries() {
		// The default node group's instance role, then the accessEntries (cluster.ts:1031-1057).
		nodeEntry := accessEntryInput{PrincipalArn: instanceRole.Arn, Type: pulumi.String("EC2_LINUX")}
		if err := b.accessEntries(map[string]accessEntryInput{"defaultNodeGroupInstanceRole": nodeEntry}, eksCluster.Name, eksCluster); err != nil {
			return nil, err
		}
		entries, err := accessEntriesOf(inputs)
		if err != nil {
			return nil, err
		}
		if err := b.accessEntries(entries, eksCluster.Name, eksCluster); err != nil {
			return nil, err
		}
		createdEntries = append(createdEntries, nodeEntry.input())
		for _, k := range slices.Sorted(maps.Keys(entries)) {
			createdEntries = append(createdEntries, entries[k].input())
		}
	}
	core["accessEntries"] = createdEntries

	issuer := eksCluster.Identities.ApplyT(func(ids []any) string {
		// pulumi-eks: identities[0].oidcs[0].issuer, "" when absent.
		if len(ids) > 0 {
			if oidcs, _ := ids[0].(map[string]any)["oidcs"].([]any); len(oidcs) > 0 {
				s, _ := oidcs[0].(map[string]any)["issuer"].(string)
				return s
			}
		}
		return ""
	}).(pulumi.StringOutput)
	oidcProviderArn := pulumi.String("").ToStringOutput()
	if args.createOIDCProvider {
		var region struct {
			Name string `pulumi:"name"`
		}
		if err := b.invoke("aws:index/getRegion:getRegion", struct{}{}, &region); err != nil {
			return nil, err
		}
		logf("%s %s: the OIDC provider's thumbprint is %s, not read from https://oidc.eks.%s.amazonaws.com (no network)", clusterType, name, eksThumbprint, region.Name)
		oidc := &oidcProvider{}
		if err := b.aws("aws:iam/openIdConnectProvider:OpenIdConnectProvider", name+"-oidcProvider", pulumi.Map{
			"clientIdLists":   pulumi.StringArray{pulumi.String("sts.amazonaws.com")},
			"url":             issuer,
			"thumbprintLists": pulumi.StringArray{pulumi.String(eksThumbprint)},
		}, oidc, b.comp); err != nil {
			return nil, err
		}
		oidcProviderArn = oidc.Arn
		core["oidcProvider"] = pulumi.NewResourceOutput(oidc)
	}

	nodeSG, clusterIngress, err := b.nodeSecurityGroup(in, vpcID, clusterSG, eksCluster)
	if err != nil {
		return nil, err
	}

	// createCore returns these as given (cluster.ts:1269-1282).
	for _, k := range []string{"nodeSecurityGroupTags", "publicSubnetIds", "privateSubnetIds"} {
		if v, ok := in[k]; ok {
			core[k] = v
		}
	}
	// The outputs, with pulumi-eks's names (cluster.ts's createCluster and createCore returns).
	nodeGroupOptions := pulumi.Map{"instanceProfile": pulumi.NewResourceOutput(instanceProfile)}
	for k, v := range map[string]pulumi.Input{
		"cluster": pulumi.NewResourceOutput(eksCluster), "vpcId": vpcID, "subnetIds": subnetIDs,
		"endpoint": eksCluster.Endpoint, "provider": pulumi.NewResourceOutput(k8s),
		"instanceRoles": pulumi.NewResourceArrayOutput(pulumi.NewResourceOutput(instanceRole)), "clusterIamRole": pulumi.NewResourceOutput(eksRole),
		"kubeconfig": kubeconfig, "storageClasses": pulumi.Map{}, "nodeGroupOptions": nodeGroupOptions,
	} {
		core[k] = v
	}
	state := pulumi.Map{
		"kubeconfig":              kubeconfig,
		"kubeconfigJson":          kubeconfigJSON,
		"eksCluster":              pulumi.NewResourceOutput(eksCluster),
		"core":                    core,
		"instanceRoles":           pulumi.NewResourceArrayOutput(pulumi.NewResourceOutput(instanceRole)),
		"defaultNodeGroupAsgName": pulumi.String(""), // no default node group (main.go)
		"fargateProfileId":        pulumi.String(""),
		"fargateProfileStatus":    pulumi.String(""),
		"oidcProviderArn":         oidcProviderArn,
		"oidcProviderUrl":         issuer,
		"oidcIssuer":              issuer.ApplyT(func(s string) string { return strings.Replace(s, "https://", "", 1) }).(pulumi.StringOutput),
		"autoModeNodeRoleName":    autoModeNodeRoleName,
	}
	// Without the default security groups (Auto Mode) both ids are the security group EKS made for
	// the cluster, and there is no ingress rule (cluster.ts:2196-2200).
	eksClusterSGID := eksCluster.VpcConfig.ApplyT(func(vc map[string]any) string {
		id, _ := vc["clusterSecurityGroupId"].(string)
		return id
	}).(pulumi.StringOutput)
	state["clusterSecurityGroupId"], state["nodeSecurityGroupId"], state["clusterIngressRuleId"] = eksClusterSGID, eksClusterSGID, pulumi.String("")
	if clusterSG != nil {
		core["clusterSecurityGroup"] = pulumi.NewResourceOutput(clusterSG)
		state["clusterSecurityGroup"] = pulumi.NewResourceOutput(clusterSG)
		state["clusterSecurityGroupId"] = clusterSG.ID().ToStringOutput()
	}
	if nodeSG != nil {
		nodeGroupOptions["nodeSecurityGroup"] = pulumi.NewResourceOutput(nodeSG)
		nodeGroupOptions["clusterIngressRule"] = pulumi.NewResourceOutput(clusterIngress)
		state["nodeSecurityGroup"] = pulumi.NewResourceOutput(nodeSG)
		state["nodeSecurityGroupId"] = nodeSG.ID().ToStringOutput()
		state["eksClusterIngressRule"] = pulumi.NewResourceOutput(clusterIngress)
		state["clusterIngressRuleId"] = clusterIngress.SecurityGroupRuleID
	}
	if err := ctx.RegisterResourceOutputs(b.comp, state); err != nil {
		return nil, err
	}
	return &pprovider.ConstructResult{URN: b.comp.URN(), State: state}, nil
}

// nodeSecurityGroup is createNodeGroupSecurityGroup (nodes/securitygroup.ts), parented to the
// cluster component: the node security group and its rules, the last one on the cluster security
// group. Auto Mode skips it (cluster.ts:2120): nil, nil.
func (b *builder) nodeSecurityGroup(in pulumi.Map, vpcID pulumi.StringOutput, clusterSG *custom, eksCluster *cluster) (*custom, *rule, error) {
	if clusterSG == nil {
		return nil, nil, nil
	}
	name := b.name
	nodeSG := &custom{}
	if err := b.aws("aws:ec2/securityGroup:SecurityGroup", name+"-nodeSecurityGroup", pulumi.Map{
		"vpcId": vpcID, "revokeRulesOnDelete": pulumi.Bool(true),
		"tags": pulumi.All(inputOr(in, "nodeSecurityGroupTags"), eksCluster.Name).ApplyT(func(v []any) (map[string]string, error) {
			tags, err := stringMapOf("nodeSecurityGroupTags", v[0])
			return nodeSecurityGroupTags(name, v[1].(string), tags), err
		}).(pulumi.StringMapOutput),
	}, nodeSG, b.comp); err != nil {
		return nil, nil, err
	}
	nodeSGID, clusterSGID := nodeSG.ID().ToStringOutput(), clusterSG.ID().ToStringOutput()
	var clusterIngress *rule
	for _, r := range []struct {
		name, description, typ, protocol string
		from, to                         int
		extra                            pulumi.Map
		sg                               pulumi.StringOutput
	}{
		{"-eksNodeIngressRule", "Allow nodes to communicate with each other", "ingress", "-1", 0, 0, pulumi.Map{"self": pulumi.Bool(true)}, nodeSGID},
		{"-eksNodeClusterIngressRule", "Allow worker Kubelets and pods to receive communication from the cluster control plane", "ingress", "tcp", 1025, 65535,
			pulumi.Map{"sourceSecurityGroupId": clusterSGID}, nodeSGID},
		{"-eksExtApiServerClusterIngressRule", "Allow pods running extension API servers on port 443 to receive communication from cluster control plane", "ingress", "tcp", 443, 443,
			pulumi.Map{"sourceSecurityGroupId": clusterSGID}, nodeSGID},
		{"-eksNodeInternetEgressRule", "Allow internet access.", "egress", "-1", 0, 0, pulumi.Map{"cidrBlocks": pulumi.StringArray{pulumi.String("0.0.0.0/0")}}, nodeSGID},
		{"-eksClusterIngressRule", "Allow pods to communicate with the cluster API Server", "ingress", "tcp", 443, 443,
			pulumi.Map{"sourceSecurityGroupId": nodeSGID}, clusterSGID},
	} {
		props := pulumi.Map{"description": pulumi.String(r.description), "type": pulumi.String(r.typ), "fromPort": pulumi.Int(r.from),
			"toPort": pulumi.Int(r.to), "protocol": pulumi.String(r.protocol), "securityGroupId": r.sg}
		for k, v := range r.extra {
			props[k] = v
		}
		created, err := b.securityGroupRule(name+r.name, props)
		if err != nil {
			return nil, nil, err
		}
		clusterIngress = created // the last: the cluster ingress rule
	}
	return nodeSG, clusterIngress, nil
}

// mergeTags is JavaScript's object spread, by which pulumi-eks writes the security groups' tags.
// pulumi-eks spreads its `tags` input last into both groups' tags; the stand-in does not implement
// `tags`.
var mergeTags = componentprovider.MergeTags

// clusterSecurityGroupTags is {Name: `${name}-eksClusterSecurityGroup`, ...clusterSecurityGroupTags,
// ...tags} (cluster.ts:560-566): clusterSecurityGroupTags may replace Name.
func clusterSecurityGroupTags(name string, tags map[string]string) map[string]string {
	return mergeTags(map[string]string{"Name": name + "-eksClusterSecurityGroup"}, tags)
}

// nodeSecurityGroupTags is the node security group's tags: cluster.ts:2136-2142 passes
// {...nodeSecurityGroupTags, ...tags} to createNodeGroupSecurityGroup, which writes {Name:
// `${name}-nodeSecurityGroup`, [`kubernetes.io/cluster/${clusterName}`]: "owned", ...those}
// (nodes/securitygroup.ts:118-124): nodeSecurityGroupTags may replace either.
func nodeSecurityGroupTags(name, clusterName string, tags map[string]string) map[string]string {
	return mergeTags(map[string]string{"Name": name + "-nodeSecurityGroup", "kubernetes.io/cluster/" + clusterName: "owned"}, tags)
}

// inputOr is the input key, or an empty map when it is absent (JavaScript spreads undefined as
// nothing).
// network is the cluster's VPC and subnets as pulumi-eks's createCore forms them
// (cluster.ts:484-512): without vpcId, the default VPC and all its subnets (read through the
// program's aws provider); then subnetIds if given, else publicSubnetIds followed by
// privateSubnetIds. With vpcId and no subnets the list is empty, as there (EKS then refuses the
// cluster).
func (b *builder) network(in pulumi.Map) (pulumi.StringOutput, pulumi.StringArrayOutput, error) {
	var vpcID pulumi.StringOutput
	subnetIDs := pulumi.ToStringArray(nil).ToStringArrayOutput()
	if v, ok := in["vpcId"]; ok {
		vpcID = pulumi.All(v).ApplyT(func(v []any) (string, error) {
			s, ok := v[0].(string)
			if !ok {
				return "", fmt.Errorf("%s input \"vpcId\" must be a string, got %T", clusterType, v[0])
			}
			return s, nil
		}).(pulumi.StringOutput)
	} else {
		var vpc struct {
			ID string `pulumi:"id"`
		}
		if err := b.invoke("aws:ec2/getVpc:getVpc", struct {
			Default bool `pulumi:"default"`
		}{true}, &vpc); err != nil {
			return vpcID, subnetIDs, err
		}
		type filter struct {
			Name   string   `pulumi:"name"`
			Values []string `pulumi:"values"`
		}
		var subnets struct {
			IDs []string `pulumi:"ids"`
		}
		if err := b.invoke("aws:ec2/getSubnets:getSubnets", struct {
			Filters []filter `pulumi:"filters"`
		}{[]filter{{Name: "vpc-id", Values: []string{vpc.ID}}}}, &subnets); err != nil {
			return vpcID, subnetIDs, err
		}
		vpcID, subnetIDs = pulumi.String(vpc.ID).ToStringOutput(), pulumi.ToStringArray(subnets.IDs).ToStringArrayOutput()
	}
	lists := []string{"subnetIds"}
	if _, ok := in["subnetIds"]; !ok {
		lists = []string{"publicSubnetIds", "privateSubnetIds"}
	}
	var given []any
	for _, k := range lists {
		if v, ok := in[k]; ok {
			given = append(given, v)
		}
	}
	if len(given) == 0 {
		return vpcID, subnetIDs, nil
	}
	return vpcID, pulumi.All(given...).ApplyT(func(v []any) ([]string, error) {
		var ids []string
		for i, l := range v {
			list, err := stringsOf(lists[i], l)
			if err != nil {
				return nil, err
			}
			ids = append(ids, list...)
		}
		return ids, nil
	}).(pulumi.StringArrayOutput), nil
}

// stringsOf is a list of strings input's value once known.
func stringsOf(input string, v any) ([]string, error) {
	switch v := v.(type) {
	case []string:
		return v, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s input %q: element %d is a %T, not a string", clusterType, input, i, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s input %q must be a list of strings, got %T", clusterType, input, v)
}

// inputOr and stringMapOf read inputs as pulumi-eks's JavaScript does (componentprovider).
var inputOr = componentprovider.InputOr

func stringMapOf(input string, v any) (map[string]string, error) {
	return componentprovider.StringMapOf(clusterType, input, v)
}
