package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Cluster is the cluster `render` checks the inputs against when the args describe one
// (`cluster`); render reads no AWS, so without it the component runs as with readCluster false.
// Every field has a default that fits the inputs: a cluster named clusterName in
// API_AND_CONFIG_MAP mode running Kubernetes 1.33, the OIDC issuer oidcProviderArn names, three
// subnets and a security group tagged for discovery in its VPC, every SSM parameter and the Spot
// service-linked role present. Tests set what they need otherwise.
type Cluster struct {
	AuthenticationMode string          `json:"authenticationMode"`
	Version            string          `json:"version"`
	Endpoint           string          `json:"endpoint"`
	OIDCIssuer         string          `json:"oidcIssuer"`
	VpcID              string          `json:"vpcId"`
	AutoMode           bool            `json:"autoMode"`
	Subnets            []Subnet        `json:"subnets"`
	SecurityGroups     []SecurityGroup `json:"securityGroups"`
	OIDCProviders      []OIDCProvider  `json:"oidcProviders"`
	MissingParameters  []string        `json:"missingParameters"`
	// NoSpotServiceLinkedRole: the account has no AWSServiceRoleForEC2Spot.
	NoSpotServiceLinkedRole bool `json:"noSpotServiceLinkedRole"`
	// Roles are the account's IAM roles besides the Spot service-linked role, by name.
	Roles []string `json:"roles"`
	// RoleDescriptions are descriptions of roles of Roles, by name (default: none).
	RoleDescriptions map[string]string `json:"roleDescriptions"`
	// IAMPaths are the paths of IAM roles and policies, by name (default: "/").
	IAMPaths map[string]string `json:"iamPaths"`
	// Absent names what an adopted install lacks (adopt): IAM roles, policies and instance
	// profiles and SQS queues by name, "access-entry" for the node role's access entry, an
	// EKS add-on by its name. Everything else adopt names exists.
	Absent []string `json:"absent"`
	// AccessEntries are the cluster's EKS access entries, by their role's name; besides them,
	// only an adopted install's node role has one (as the getting-started guide makes it),
	// unless Absent names "access-entry".
	AccessEntries map[string]AccessEntry `json:"accessEntries"`
	// Missing: there is no such cluster.
	Missing bool `json:"missing"`
	// Denied are the IAM actions the deployer may not call (e.g. "iam:GetRole"): each read that
	// needs one fails as AWS refuses it (AccessDenied), which is not "not found".
	Denied []string `json:"denied"`

	// What the cluster's API server holds, for the reads the component makes of it.
	// AwsAuthManagers are kube-system/aws-auth's field managers of data.mapRoles (default: EKS's
	// update); CrdRelease the Helm release, `<namespace>/<name>`, that holds the running install's
	// CRDs (default: none, as the controller chart's crds/ leave them); ReleaseValues the running
	// `karpenter` release's values (default: the getting-started guide's).
	AwsAuthManagers []FieldManager `json:"awsAuthManagers"`
	CrdRelease      string         `json:"crdRelease"`
	ReleaseValues   map[string]any `json:"releaseValues"`
	// Installed are the adopted install's NodePools and node classes as they run, by
	// `<kind>/<name>` (e.g. `EC2NodeClass/default`): their spec, applied by kubectl. One not given
	// reads as the kubernetes provider applied it (the adoption done), which the drift check skips.
	Installed map[string]map[string]any `json:"installed"`

	name     string
	adopting bool
	// adoptedNodeRole is the node role adopt names (the getting-started guide's by default).
	adoptedNodeRole string
}

// AccessEntry is an EKS access entry as DescribeAccessEntry answers: its type (default
// EC2_LINUX) and tags.
type AccessEntry struct {
	Type string            `json:"type"`
	Tags map[string]string `json:"tags"`
}

// accessEntry is the access entry of the role principalArn names, if the cluster has one.
func (c *Cluster) accessEntry(principalArn string) (AccessEntry, bool) {
	if c == nil { // without a cluster in the args, everything an adoption names exists
		return AccessEntry{Type: "EC2_LINUX"}, true
	}
	role := principalArn[strings.LastIndex(principalArn, "/")+1:]
	if e, ok := c.AccessEntries[role]; ok {
		if e.Type == "" {
			e.Type = "EC2_LINUX"
		}
		return e, true
	}
	if c.adopting && role == c.adoptedNodeRole && c.has("access-entry") {
		return AccessEntry{Type: "EC2_LINUX"}, true
	}
	return AccessEntry{}, false
}

// has says whether the account has the IAM role, policy, instance profile, queue, access entry
// or add-on name: without a cluster in the args, everything an adoption names exists.
func (c *Cluster) has(name string) bool {
	return c == nil || !slices.Contains(c.Absent, name)
}

// FieldManager is a manager of aws-auth's data.mapRoles: who wrote it, and how (Update, Apply).
type FieldManager struct {
	Manager   string `json:"manager"`
	Operation string `json:"operation"`
}

// Subnet is one of the cluster's subnets (a getSubnet answer).
type Subnet struct {
	ID    string            `json:"id"`
	VpcID string            `json:"vpcId"`
	Zone  string            `json:"zone"`
	Tags  map[string]string `json:"tags"`
}

// SecurityGroup is one of the security groups getSecurityGroups filters.
type SecurityGroup struct {
	ID    string            `json:"id"`
	Name  string            `json:"name"`
	VpcID string            `json:"vpcId"`
	Tags  map[string]string `json:"tags"`
}

// OIDCProvider is an IAM OIDC provider of the account (a getOpenIdConnectProvider answer).
type OIDCProvider struct {
	Arn       string   `json:"arn"`
	URL       string   `json:"url"`
	ClientIDs []string `json:"clientIds"`
}

// parseCluster reads the args' `cluster` and completes it with defaults that fit inputs.
func parseCluster(raw any, inputs map[string]any) (*Cluster, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	c.name, _ = inputs["clusterName"].(string)
	adopt, adopting := inputs["adopt"].(map[string]any)
	c.adopting = adopting
	if c.adoptedNodeRole, _ = adopt["nodeRoleName"].(string); c.adoptedNodeRole == "" {
		c.adoptedNodeRole = catalog.GettingStartedNodeRole(c.name)
	}
	if c.AuthenticationMode == "" {
		c.AuthenticationMode = "API_AND_CONFIG_MAP"
	}
	if c.Version == "" {
		c.Version = "1.33"
	}
	if c.Endpoint == "" {
		c.Endpoint = "https://0123456789ABCDEF0123456789ABCDEF.gr7." + region + ".eks.amazonaws.com"
	}
	arn, _ := inputs["oidcProviderArn"].(string)
	if c.OIDCIssuer == "" {
		c.OIDCIssuer = "https://oidc.eks." + region + ".amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"
		if _, named, ok := strings.Cut(arn, ":oidc-provider/"); ok {
			c.OIDCIssuer = "https://" + named
		}
	}
	if c.VpcID == "" {
		c.VpcID = "vpc-0render"
	}
	discovery := map[string]string{"karpenter.sh/discovery": c.name}
	if c.Subnets == nil {
		for _, z := range []string{"a", "b", "c"} {
			c.Subnets = append(c.Subnets, Subnet{ID: "subnet-0render" + z, Zone: region + z})
		}
	}
	if c.SecurityGroups == nil {
		c.SecurityGroups = []SecurityGroup{{ID: "sg-0rendernodes", Name: "nodes"}}
	}
	// A subnet or group without `tags` carries the discovery tag (`tags: {}`: none).
	for i := range c.Subnets {
		if c.Subnets[i].VpcID == "" {
			c.Subnets[i].VpcID = c.VpcID
		}
		if c.Subnets[i].Tags == nil {
			c.Subnets[i].Tags = discovery
		}
	}
	for i := range c.SecurityGroups {
		if c.SecurityGroups[i].VpcID == "" {
			c.SecurityGroups[i].VpcID = c.VpcID
		}
		if c.SecurityGroups[i].Tags == nil {
			c.SecurityGroups[i].Tags = discovery
		}
	}
	if c.OIDCProviders == nil && arn != "" {
		c.OIDCProviders = []OIDCProvider{{Arn: arn, URL: strings.TrimPrefix(c.OIDCIssuer, "https://"), ClientIDs: []string{"sts.amazonaws.com"}}}
	}
	return c, nil
}

// ReadActions are the IAM actions the reads of the component need, by invoke (pulumi-aws's data
// sources: the AWS API call each makes first).
var ReadActions = map[string]string{
	"aws:eks/getCluster:getCluster":                             "eks:DescribeCluster",
	"aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider": "iam:GetOpenIDConnectProvider",
	"aws:ec2/getSubnets:getSubnets":                             "ec2:DescribeSubnets",
	"aws:ec2/getSubnet:getSubnet":                               "ec2:DescribeSubnets",
	"aws:ec2/getSecurityGroups:getSecurityGroups":               "ec2:DescribeSecurityGroups",
	"aws:ssm/getParameter:getParameter":                         "ssm:GetParameter",
	"aws:iam/getRole:getRole":                                   "iam:GetRole",
	"aws:iam/getPolicy:getPolicy":                               "iam:GetPolicy",
	"aws:iam/getInstanceProfile:getInstanceProfile":             "iam:GetInstanceProfile",
	"aws:sqs/getQueue:getQueue":                                 "sqs:GetQueueUrl",
	"aws:eks/getAddon:getAddon":                                 "eks:DescribeAddon",
	"aws:eks/getAccessEntry:getAccessEntry":                     "eks:DescribeAccessEntry",
}

// deniedCodes are the error codes each service answers a refused call with.
var deniedCodes = map[string]string{"ec2": "UnauthorizedOperation", "eks": "AccessDeniedException",
	"ssm": "AccessDeniedException", "iam": "AccessDenied", "sqs": "AccessDenied"}

// denied is the error pulumi-aws returns for a read whose action Denied names (the AWS SDK's
// "operation error" with the service's refusal), or nil.
func (c *Cluster) denied(token string) error {
	action, ok := ReadActions[token]
	if c == nil || !ok || !slices.Contains(c.Denied, action) {
		return nil
	}
	service, operation, _ := strings.Cut(action, ":")
	return fmt.Errorf("operation error %s: %s, https response error StatusCode: 403, RequestID: render, api error %s: User: arn:%s:iam::%s:user/render is not authorized to perform: %s because no identity-based policy allows the %s action",
		strings.ToUpper(service), operation, deniedCodes[service], partition, account, action, action)
}

// call answers the cluster checks' invokes the way pulumi-aws does (its not-found messages
// included), or ok false for another token.
func (c *Cluster) call(token string, args presource.PropertyMap) (result presource.PropertyMap, ok bool, err error) {
	if c == nil {
		return nil, false, nil
	}
	arg := func(k string) string {
		if v, ok := args[presource.PropertyKey(k)]; ok && v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	switch token {
	case "aws:eks/getCluster:getCluster":
		if c.Missing || arg("name") != c.name {
			return nil, true, fmt.Errorf("reading EKS Cluster (%s): couldn't find resource", arg("name"))
		}
		return mockMap(map[string]any{
			"id": c.name, "name": c.name, "version": c.Version, "endpoint": c.Endpoint, "status": "ACTIVE",
			"accessConfigs":  []any{map[string]any{"authenticationMode": c.AuthenticationMode, "bootstrapClusterCreatorAdminPermissions": true}},
			"computeConfigs": []any{map[string]any{"enabled": c.AutoMode}},
			"identities":     []any{map[string]any{"oidcs": []any{map[string]any{"issuer": c.OIDCIssuer}}}},
			"vpcConfig":      map[string]any{"vpcId": c.VpcID},
		}), true, nil
	case "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider":
		for _, p := range c.OIDCProviders {
			if p.Arn == arg("arn") {
				return mockMap(map[string]any{"arn": p.Arn, "id": p.Arn, "url": p.URL, "clientIdLists": stringsAny(p.ClientIDs)}), true, nil
			}
		}
		return nil, true, fmt.Errorf("reading IAM OIDC Provider (%s): couldn't find resource", arg("arn"))
	case "aws:ec2/getSubnets:getSubnets":
		var ids []any
		for _, s := range c.Subnets {
			if matchesFilters(args, map[string][]string{"subnet-id": {s.ID}, "vpc-id": {s.VpcID}, "availability-zone": {s.Zone}}, s.Tags) {
				ids = append(ids, s.ID)
			}
		}
		return mockMap(map[string]any{"id": region, "ids": ids}), true, nil
	case "aws:ec2/getSubnet:getSubnet":
		for _, s := range c.Subnets {
			if s.ID == arg("id") {
				return mockMap(map[string]any{"id": s.ID, "vpcId": s.VpcID, "availabilityZone": s.Zone, "tags": tagsAny(s.Tags)}), true, nil
			}
		}
		return nil, true, fmt.Errorf("reading EC2 Subnet: empty result")
	case "aws:ec2/getSecurityGroups:getSecurityGroups":
		ids, vpcs := []any{}, []any{}
		for _, g := range c.SecurityGroups {
			if matchesFilters(args, map[string][]string{"group-id": {g.ID}, "group-name": {g.Name}, "vpc-id": {g.VpcID}}, g.Tags) {
				ids, vpcs = append(ids, g.ID), append(vpcs, g.VpcID)
			}
		}
		return mockMap(map[string]any{"id": region, "ids": ids, "vpcIds": vpcs}), true, nil
	case "aws:ssm/getParameter:getParameter":
		if slices.Contains(c.MissingParameters, arg("name")) {
			return nil, true, fmt.Errorf("reading SSM Parameter (%s): couldn't find resource", arg("name"))
		}
		return mockMap(map[string]any{"id": arg("name"), "name": arg("name"), "type": "String", "value": "ami-0render"}), true, nil
	case "aws:iam/getRole:getRole":
		installed := c.adopting && c.has(arg("name"))
		if spot := arg("name") == "AWSServiceRoleForEC2Spot"; spot && c.NoSpotServiceLinkedRole || !spot && !installed && !slices.Contains(c.Roles, arg("name")) {
			return nil, true, fmt.Errorf("reading IAM Role (%s): couldn't find resource", arg("name"))
		}
		return mockMap(map[string]any{"id": arg("name"), "name": arg("name"), "arn": c.iamArn("role", arg("name")),
			"description": c.RoleDescriptions[arg("name")]}), true, nil
	}
	return nil, false, nil
}

// matchesFilters evaluates EC2 filters on an object's attributes and tags.
func matchesFilters(args presource.PropertyMap, attributes map[string][]string, tags map[string]string) bool {
	filters, ok := args["filters"]
	if !ok || !filters.IsArray() {
		return true
	}
	for _, f := range filters.ArrayValue() {
		name := f.ObjectValue()["name"].StringValue()
		var values []string
		for _, v := range f.ObjectValue()["values"].ArrayValue() {
			values = append(values, v.StringValue())
		}
		var have []string
		switch {
		case name == "tag-key":
			for k := range tags {
				have = append(have, k)
			}
		case strings.HasPrefix(name, "tag:"):
			if v, ok := tags[strings.TrimPrefix(name, "tag:")]; ok {
				have = []string{v}
			}
		default:
			have = attributes[name]
		}
		if !slices.ContainsFunc(values, func(v string) bool {
			return slices.ContainsFunc(have, func(h string) bool { return filterValueMatches(v, h) })
		}) {
			return false
		}
	}
	return true
}

// filterValueMatches matches an EC2 filter value against a value as EC2 does: `*` matches any
// characters, `?` one, and a backslash makes the next character literal (EC2 API Reference,
// "Filtering": "You can use wildcards with the filter values").
func filterValueMatches(pattern, value string) bool {
	var re strings.Builder
	re.WriteString("^")
	escaped := false
	for _, c := range pattern {
		switch {
		case escaped:
			re.WriteString(regexp.QuoteMeta(string(c)))
			escaped = false
		case c == '\\':
			escaped = true
		case c == '*':
			re.WriteString("(?s:.*)")
		case c == '?':
			re.WriteString("(?s:.)")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String()).MatchString(value)
}

func stringsAny(items []string) []any {
	out := []any{}
	for _, s := range items {
		out = append(out, s)
	}
	return out
}

func tagsAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// iamArn is the ARN of the IAM role or policy (kind) name, under its path (IAMPaths).
func (c *Cluster) iamArn(kind, name string) string {
	path := "/"
	if c != nil && c.IAMPaths[name] != "" {
		path = c.IAMPaths[name]
	}
	return fmt.Sprintf("arn:%s:iam::%s:%s%s%s", partition, account, kind, path, name)
}
