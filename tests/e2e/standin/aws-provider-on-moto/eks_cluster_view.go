package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// An EKS cluster as the stand-in answers for it: what moto's EKS holds (DescribeCluster: name,
// ARN, role, status, creation time, platform version, tags, subnets, security groups, endpoint
// access, service CIDR, logging), completed by the stand-in's record of what moto lacks.

// clusterRecord is what the stand-in keeps of a cluster it created, beside moto's EKS.
type clusterRecord struct {
	Name    string `json:"name"`
	Version string `json:"version"` // moto has no UpdateClusterVersion
	// Endpoint and CertificateData: STANDIN_EKS_ENDPOINT and STANDIN_EKS_CA_DATA when the cluster
	// was created (the lab's API server stands for the control plane); empty: moto's.
	Endpoint                                string         `json:"endpoint,omitempty"`
	CertificateData                         string         `json:"certificateAuthorityData,omitempty"`
	OIDCIssuer                              string         `json:"oidcIssuer"`
	VpcID                                   string         `json:"vpcId"`
	ClusterSecurityGroupID                  string         `json:"clusterSecurityGroupId"`
	AuthenticationMode                      string         `json:"authenticationMode"`
	BootstrapClusterCreatorAdminPermissions bool           `json:"bootstrapClusterCreatorAdminPermissions"`
	IPFamily                                string         `json:"ipFamily"`
	ServiceIPv6CIDR                         string         `json:"serviceIpv6Cidr,omitempty"`
	ElasticLoadBalancing                    map[string]any `json:"elasticLoadBalancing,omitempty"`
	ComputeConfig                           map[string]any `json:"computeConfig,omitempty"`
	StorageConfig                           map[string]any `json:"storageConfig,omitempty"`
	EncryptionConfig                        map[string]any `json:"encryptionConfig,omitempty"`
	UpgradeSupportType                      string         `json:"upgradeSupportType"`
}

// setConfig records the blocks moto's EKS drops, as the program gave them.
func (r *clusterRecord) setConfig(in pmap) {
	block := func(v resource.PropertyValue) map[string]any {
		if o := objectOf(v); len(o) > 0 {
			return o.Mappable()
		}
		return nil
	}
	r.ComputeConfig = block(in["computeConfig"])
	r.StorageConfig = block(in["storageConfig"])
	r.ElasticLoadBalancing = block(objectOf(in["kubernetesNetworkConfig"])["elasticLoadBalancing"])
	if r.EncryptionConfig == nil { // associated once: EKS cannot change or remove it
		r.EncryptionConfig = block(in["encryptionConfig"])
	}
}

type clusterView struct {
	c   *ekstypes.Cluster // moto's DescribeCluster
	rec *clusterRecord    // nil for a cluster only moto knows (created through moto's API directly)
}

// clusterView reads a cluster; nil when moto's EKS has none of that name.
func (p *provider) clusterView(ctx context.Context, name string) (*clusterView, error) {
	cl, err := p.clients()
	if err != nil {
		return nil, err
	}
	out, err := cl.eks.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v := &clusterView{c: out.Cluster}
	v.rec, err = p.recordedCluster(name)
	return v, err
}

// recordedCluster is a copy of the record's cluster (nil when the stand-in did not create it).
func (p *provider) recordedCluster(name string) (*clusterRecord, error) {
	var rec *clusterRecord
	err := p.eks.with(false, func(r *eksRecord) error {
		if c, ok := r.Clusters[name]; ok {
			cp := *c
			rec = &cp
		}
		return nil
	})
	return rec, err
}

func (v *clusterView) version() string {
	if v.rec != nil {
		return v.rec.Version
	}
	return aws.ToString(v.c.Version)
}

func (v *clusterView) endpoint() string {
	if v.rec != nil && v.rec.Endpoint != "" {
		return v.rec.Endpoint
	}
	return aws.ToString(v.c.Endpoint)
}

func (v *clusterView) caData() string {
	if v.rec != nil && v.rec.CertificateData != "" {
		return v.rec.CertificateData
	}
	if v.c.CertificateAuthority != nil {
		return aws.ToString(v.c.CertificateAuthority.Data)
	}
	return ""
}

func (v *clusterView) issuer() string {
	if v.rec != nil {
		return v.rec.OIDCIssuer
	}
	if v.c.Identity != nil && v.c.Identity.Oidc != nil {
		return aws.ToString(v.c.Identity.Oidc.Issuer)
	}
	return ""
}

func (v *clusterView) vpc() ekstypes.VpcConfigResponse {
	out := ekstypes.VpcConfigResponse{}
	if v.c.ResourcesVpcConfig != nil {
		out = *v.c.ResourcesVpcConfig
	}
	if v.rec != nil {
		out.VpcId, out.ClusterSecurityGroupId = aws.String(v.rec.VpcID), aws.String(v.rec.ClusterSecurityGroupID)
	}
	if out.SubnetIds == nil {
		out.SubnetIds = []string{}
	}
	if out.SecurityGroupIds == nil {
		out.SecurityGroupIds = []string{}
	}
	if out.PublicAccessCidrs == nil {
		out.PublicAccessCidrs = []string{}
	}
	return out
}

func (v *clusterView) vpcConfigValue() resource.PropertyValue {
	c := v.vpc()
	return resource.NewObjectProperty(pmap{
		"clusterSecurityGroupId": sv(aws.ToString(c.ClusterSecurityGroupId)),
		"endpointPrivateAccess":  bv(c.EndpointPrivateAccess),
		"endpointPublicAccess":   bv(c.EndpointPublicAccess),
		"publicAccessCidrs":      listValue(c.PublicAccessCidrs),
		"securityGroupIds":       listValue(c.SecurityGroupIds),
		"subnetIds":              listValue(c.SubnetIds),
		"vpcId":                  sv(aws.ToString(c.VpcId)),
	})
}

// logTypes is terraform's flattenLogging: the enabled types.
func (v *clusterView) logTypes() []string {
	out := []string{}
	if v.c.Logging != nil {
		for _, s := range v.c.Logging.ClusterLogging {
			if aws.ToBool(s.Enabled) {
				for _, t := range s.Types {
					out = append(out, string(t))
				}
			}
		}
	}
	return out
}

// network is kubernetesNetworkConfig: the service CIDR as moto holds it, the rest recorded.
func (v *clusterView) network() (ipFamily, ipv4, ipv6 string, elb map[string]any) {
	if n := v.c.KubernetesNetworkConfig; n != nil {
		ipFamily, ipv4, ipv6 = string(n.IpFamily), aws.ToString(n.ServiceIpv4Cidr), aws.ToString(n.ServiceIpv6Cidr)
	}
	if v.rec != nil {
		ipFamily, ipv6, elb = v.rec.IPFamily, v.rec.ServiceIPv6CIDR, v.rec.ElasticLoadBalancing
	}
	if ipFamily == "" {
		ipFamily = "ipv4"
	}
	return ipFamily, ipv4, ipv6, elb
}

func (v *clusterView) identities() resource.PropertyValue {
	return resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(pmap{
		"oidcs": resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(pmap{"issuer": sv(v.issuer())})}),
	})})
}

func objectValue(m map[string]any) resource.PropertyValue {
	return resource.NewObjectProperty(resource.NewPropertyMapFromMap(m))
}

// computeValue is flattenComputeConfigResponse: enabled, nodePools and nodeRoleArn, each present.
func computeValue(m map[string]any) resource.PropertyValue {
	cc := resource.NewPropertyMapFromMap(m)
	return resource.NewObjectProperty(pmap{
		"enabled": bv(boolOr(cc, "enabled", false)), "nodePools": listValue(stringList(cc, "nodePools")),
		"nodeRoleArn": sv(str(cc, "nodeRoleArn")),
	})
}

// clusterOutputs are the outputs of aws:eks/cluster:Cluster (pulumi-aws 6.83.2's names), as
// terraform's resourceClusterRead sets them.
func clusterOutputs(v *clusterView, in pmap) pmap {
	c := v.c
	ipFamily, ipv4, ipv6, elb := v.network()
	network := pmap{"ipFamily": sv(ipFamily), "serviceIpv4Cidr": sv(ipv4), "serviceIpv6Cidr": sv(ipv6)}
	if elb != nil {
		network["elasticLoadBalancing"] = objectValue(elb)
	}
	ca := resource.NewObjectProperty(pmap{"data": sv(v.caData())})
	outs := pmap{
		"arn":                        sv(aws.ToString(c.Arn)),
		"bootstrapSelfManagedAddons": bv(boolOr(in, "bootstrapSelfManagedAddons", true)), // from the configuration, as terraform
		"certificateAuthorities":     resource.NewArrayProperty([]resource.PropertyValue{ca}),
		"certificateAuthority":       ca,
		"clusterId":                  sv(""), // "only relevant for clusters on Outposts" (cluster.go)
		"createdAt":                  rfc3339(c.CreatedAt),
		"enabledClusterLogTypes":     listValue(v.logTypes()),
		"endpoint":                   sv(v.endpoint()),
		"identities":                 v.identities(),
		"kubernetesNetworkConfig":    resource.NewObjectProperty(network),
		"name":                       sv(aws.ToString(c.Name)),
		"platformVersion":            sv(aws.ToString(c.PlatformVersion)),
		"roleArn":                    sv(aws.ToString(c.RoleArn)),
		"status":                     sv(string(c.Status)),
		"tags":                       mapValue(c.Tags),
		"tagsAll":                    mapValue(c.Tags),
		"version":                    sv(v.version()),
		"vpcConfig":                  v.vpcConfigValue(),
	}
	if has(in, "forceUpdateVersion") {
		outs["forceUpdateVersion"] = in["forceUpdateVersion"]
	}
	if r := v.rec; r != nil {
		outs["accessConfig"] = resource.NewObjectProperty(pmap{
			"authenticationMode": sv(r.AuthenticationMode), "bootstrapClusterCreatorAdminPermissions": bv(r.BootstrapClusterCreatorAdminPermissions),
		})
		outs["upgradePolicy"] = resource.NewObjectProperty(pmap{"supportType": sv(r.UpgradeSupportType)})
		if r.ComputeConfig != nil {
			outs["computeConfig"] = computeValue(r.ComputeConfig)
		}
		if r.StorageConfig != nil {
			outs["storageConfig"] = objectValue(r.StorageConfig)
		}
		if r.EncryptionConfig != nil {
			outs["encryptionConfig"] = objectValue(r.EncryptionConfig)
		}
	}
	return outs
}

// oneMinorUp: EKS updates a cluster one minor version at a time, never down.
func oneMinorUp(from, to string) bool {
	minor := func(v string) (int, int, bool) {
		a, b, ok := strings.Cut(v, ".")
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		return x, y, ok && err1 == nil && err2 == nil
	}
	fx, fy, ok1 := minor(from)
	tx, ty, ok2 := minor(to)
	return ok1 && ok2 && fx == tx && ty == fy+1
}

// authenticationModeUpdates are the updates EKS allows: "you can't change the authentication mode
// back to a mode that removes the EKS API and access entries" (EKS User Guide,
// setting-up-access-entries.html), and CONFIG_MAP goes to API through API_AND_CONFIG_MAP.
var authenticationModeUpdates = map[string]string{"CONFIG_MAP": "API_AND_CONFIG_MAP", "API_AND_CONFIG_MAP": "API"}

// updateCluster updates what terraform's resourceClusterUpdate updates, in its order: the version
// first, then the access configuration, the Auto Mode blocks, encryption, logging, the upgrade
// policy, the endpoint access, subnets and security groups; tags last.
func updateCluster(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
	v, err := c.p.clusterView(ctx, id)
	if err != nil {
		return err
	}
	if v == nil || v.rec == nil {
		return fmt.Errorf("updating EKS Cluster (%s): %s", id, apiError("EKS", "UpdateClusterConfig", 404, "ResourceNotFoundException", "No cluster found for name: "+id+"."))
	}
	rec := v.rec
	cl := c.aws().eks
	if nv := str(newIn, "version"); nv != "" && nv != rec.Version {
		if !oneMinorUp(rec.Version, nv) {
			return fmt.Errorf("updating EKS Cluster (%s) version: %s", id, apiError("EKS", "UpdateClusterVersion", 400, "InvalidParameterException",
				fmt.Sprintf("Unsupported Kubernetes minor version update from %s to %s", rec.Version, nv)))
		}
		rec.Version = nv
	}
	if m := str(objectOf(newIn["accessConfig"]), "authenticationMode"); m != "" && m != rec.AuthenticationMode {
		if authenticationModeUpdates[rec.AuthenticationMode] != m {
			// re:Post Knowledge Center, "How do I troubleshoot issues with access entries in my Amazon
			// EKS cluster?" (eks-troubleshoot-access-entries).
			return fmt.Errorf("updating EKS Cluster (%s) access configuration: %s", id, apiError("EKS", "UpdateClusterConfig", 400, "InvalidParameterException",
				fmt.Sprintf("Unsupported authentication mode update from %s to %s.", rec.AuthenticationMode, m)))
		}
		rec.AuthenticationMode = m
	}
	rec.setConfig(newIn)
	if st := str(objectOf(newIn["upgradePolicy"]), "supportType"); st != "" {
		rec.UpgradeSupportType = st
	}
	if logs := stringList(newIn, "enabledClusterLogTypes"); !valueEqual(listValue(logs), listValue(v.logTypes()), true) {
		if _, err := cl.UpdateClusterConfig(ctx, &eks.UpdateClusterConfigInput{Name: aws.String(id), Logging: loggingRequest(logs)}); err != nil {
			return fmt.Errorf("updating EKS Cluster (%s) logging: %w", id, err)
		}
	}
	if vc := objectOf(newIn["vpcConfig"]); vpcChanged(vc, v.vpc()) {
		if err := c.checkSubnets(ctx, id, "UpdateClusterConfig", stringList(vc, "subnetIds")); err != nil {
			return err
		}
		// moto keeps the request it gets as the cluster's VPC configuration: send all of it.
		if _, err := cl.UpdateClusterConfig(ctx, &eks.UpdateClusterConfigInput{Name: aws.String(id), ResourcesVpcConfig: vpcConfigRequest(vc)}); err != nil {
			return fmt.Errorf("updating EKS Cluster (%s) VPC configuration: %w", id, err)
		}
	}
	if err := c.p.eks.with(true, func(r *eksRecord) error { r.Clusters[id] = rec; return nil }); err != nil {
		return err
	}
	remove, set := tagDiff(v.c.Tags, stringMap(newIn, "tags"))
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &eks.UntagResourceInput{ResourceArn: v.c.Arn, TagKeys: remove}); err != nil {
			return fmt.Errorf("updating EKS Cluster (%s) tags: %w", id, err)
		}
	}
	if len(set) > 0 {
		if _, err := cl.TagResource(ctx, &eks.TagResourceInput{ResourceArn: v.c.Arn, Tags: set}); err != nil {
			return fmt.Errorf("updating EKS Cluster (%s) tags: %w", id, err)
		}
	}
	c.note(ctx, fmt.Sprintf("updated %s %s in moto's EKS and in the record of what moto lacks (%s)", c.typ.token, c.urn.Name(), standIn))
	return nil
}

// vpcChanged compares a vpcConfig input with the cluster's VPC configuration.
func vpcChanged(vc pmap, cur ekstypes.VpcConfigResponse) bool {
	want := vpcConfigRequest(vc)
	if !has(vc, "publicAccessCidrs") {
		want.PublicAccessCidrs = cur.PublicAccessCidrs // Optional+Computed: unset keeps EKS's
	}
	same := func(a, b []string) bool { return valueEqual(listValue(a), listValue(b), true) }
	return aws.ToBool(want.EndpointPrivateAccess) != cur.EndpointPrivateAccess ||
		aws.ToBool(want.EndpointPublicAccess) != cur.EndpointPublicAccess ||
		!same(want.PublicAccessCidrs, cur.PublicAccessCidrs) || !same(want.SubnetIds, cur.SubnetIds) ||
		!same(want.SecurityGroupIds, cur.SecurityGroupIds)
}

// checkSubnets is EKS's check of a cluster's subnets: they exist, in at least two zones; it
// returns their VPC.
func (c *call) checkSubnets(ctx context.Context, name, op string, ids []string) error {
	_, err := c.subnetsVPC(ctx, name, op, ids)
	return err
}

func (c *call) subnetsVPC(ctx context.Context, name, op string, ids []string) (string, error) {
	verb := map[string]string{"CreateCluster": "creating EKS Cluster (%s)", "UpdateClusterConfig": "updating EKS Cluster (%s) VPC configuration"}[op]
	fail := func(msg string) (string, error) {
		return "", fmt.Errorf(verb+": %s", name, apiError("EKS", op, 400, "InvalidParameterException", msg))
	}
	subnets, err := c.aws().ec2.describeSubnets(ctx, nil, []ec2Filter{{Name: "subnet-id", Values: ids}})
	if err != nil {
		return "", fmt.Errorf(verb+": %w", name, err)
	}
	zones, found := map[string]bool{}, map[string]ec2Subnet{}
	for _, s := range subnets {
		zones[s.AvailabilityZone], found[s.SubnetID] = true, s
	}
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			// The wording EKS relays from EC2 (terraform-aws-eks issue reports, "InvalidParameterException:
			// The subnet ID 'subnet-…' does not exist (Service: AmazonEC2; …)").
			return fail(fmt.Sprintf("The subnet ID '%s' does not exist (Service: AmazonEC2; Status Code: 400; Error Code: InvalidSubnetID.NotFound; Request ID: %s; Proxy: null)", id, uuidLike()))
		}
	}
	if len(zones) < 2 {
		return fail("Subnets specified must be in at least two different AZs")
	}
	return found[ids[0]].VpcID, nil
}

func deleteCluster(ctx context.Context, c *call, id string, state pmap) error {
	if _, err := c.aws().eks.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(id)}); err != nil && !isNotFound(err) {
		return fmt.Errorf("deleting EKS Cluster (%s): %w", id, err)
	}
	// EKS deletes the cluster's access entries (and their policy associations), add-ons and pod
	// identity associations with it.
	sg, removed := str(objectOf(state["vpcConfig"]), "clusterSecurityGroupId"), 0
	err := c.p.eks.with(true, func(r *eksRecord) error {
		if rec := r.Clusters[id]; rec != nil {
			sg = rec.ClusterSecurityGroupID
		}
		delete(r.Clusters, id)
		for _, table := range []map[string]map[string]any{r.AccessEntries, r.AccessPolicies, r.Addons, r.PodIdentityAssociations} {
			for k, e := range table {
				if e["clusterName"] == id {
					delete(table, k)
					removed++
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if sg != "" {
		switch err := c.aws().ec2.deleteSecurityGroup(ctx, sg); errorCode(err) {
		case "", "InvalidGroup.NotFound":
		case "DependencyViolation":
			// EKS leaves its security group behind while something still uses it.
			c.note(ctx, fmt.Sprintf("the cluster security group %s of %s is still in use: left in moto, as EKS leaves it", sg, id))
		default:
			return fmt.Errorf("deleting EKS Cluster (%s) security group (%s): %w", id, sg, err)
		}
	}
	c.note(ctx, fmt.Sprintf("deleted %s %s from moto's EKS and EC2, and from the record with its %d access entries, policy associations, add-ons and pod identity associations (%s)",
		c.typ.token, c.urn.Name(), removed, standIn))
	return nil
}
