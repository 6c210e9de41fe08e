package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// The read functions (invokes) the component checks its inputs with, against the cluster: EKS,
// IAM and SSM here, EC2 in invokes_ec2.go. Each answers as pulumi-aws 6.83.2 does: the result
// fields of the published @pulumi/aws 6.83.2 declarations (<module>/<fn>.d.ts, types/output.d.ts),
// the errors as terraform-provider-aws's data sources phrase them (each function names its
// source). terraform's finders turn an AWS "not found" into retry.NotFoundError, whose message is
// "couldn't find resource" (terraform-plugin-sdk helper/retry/error.go), after the data source's
// "reading <what> (<name>)" prefix.

const couldNotFind = "couldn't find resource"

// listOf wraps objects into a list value.
func listOf(items ...pmap) resource.PropertyValue {
	out := make([]resource.PropertyValue, 0, len(items))
	for _, m := range items {
		out = append(out, resource.NewObjectProperty(m))
	}
	return resource.NewArrayProperty(out)
}

func emptyListValue() resource.PropertyValue {
	return resource.NewArrayProperty([]resource.PropertyValue{})
}

// getCluster is aws:eks/getCluster:getCluster (internal/service/eks/cluster_data_source.go,
// dataSourceClusterRead: "reading EKS Cluster (%s): %s"). Its lists are terraform's blocks: one
// element, or none when EKS answers none (an Outposts, remote-network or zonal-shift
// configuration never exists here).
func getCluster(ctx context.Context, p *provider, args pmap) (pmap, error) {
	name := str(args, "name")
	if name == "" {
		return nil, errors.New(`Missing required argument: the "name" argument is required by aws:eks/getCluster:getCluster`)
	}
	v, err := p.clusterView(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading EKS Cluster (%s): %w", name, err)
	}
	if v == nil {
		return nil, fmt.Errorf("reading EKS Cluster (%s): %s", name, couldNotFind)
	}
	c := v.c
	ipFamily, ipv4, ipv6, elb := v.network()
	elbs := emptyListValue()
	if elb != nil {
		elbs = listOf(pmap{"enabled": bv(boolOr(resource.NewPropertyMapFromMap(elb), "enabled", false))})
	}
	out := pmap{
		// flattenAccessConfigResponse(cluster.AccessConfig, nil): the API does not return the
		// bootstrap flag, and the data source answers true ("for backward compatibility").
		"accessConfigs":          listOf(pmap{"authenticationMode": sv(clusterModeOf(v.rec)), "bootstrapClusterCreatorAdminPermissions": bv(true)}),
		"arn":                    sv(aws.ToString(c.Arn)),
		"certificateAuthorities": listOf(pmap{"data": sv(v.caData())}),
		"clusterId":              sv(""), // only for clusters on Outposts
		"computeConfigs":         emptyListValue(),
		"createdAt":              rfc3339(c.CreatedAt),
		"enabledClusterLogTypes": listValue(v.logTypes()),
		"endpoint":               sv(v.endpoint()),
		"id":                     sv(name),
		"identities":             v.identities(),
		"kubernetesNetworkConfigs": listOf(pmap{
			"elasticLoadBalancings": elbs, "ipFamily": sv(ipFamily), "serviceIpv4Cidr": sv(ipv4), "serviceIpv6Cidr": sv(ipv6),
		}),
		"name":                 sv(aws.ToString(c.Name)),
		"outpostConfigs":       emptyListValue(),
		"platformVersion":      sv(aws.ToString(c.PlatformVersion)),
		"remoteNetworkConfigs": emptyListValue(),
		"roleArn":              sv(aws.ToString(c.RoleArn)),
		"status":               sv(string(c.Status)),
		"storageConfigs":       emptyListValue(),
		"tags":                 mapValue(c.Tags),
		"upgradePolicies":      emptyListValue(),
		"version":              sv(v.version()),
		"vpcConfig":            v.vpcConfigValue(),
		"zonalShiftConfigs":    emptyListValue(),
	}
	if r := v.rec; r != nil {
		out["upgradePolicies"] = listOf(pmap{"supportType": sv(r.UpgradeSupportType)})
		if r.ComputeConfig != nil {
			out["computeConfigs"] = resource.NewArrayProperty([]resource.PropertyValue{computeValue(r.ComputeConfig)})
		}
		if r.StorageConfig != nil {
			bs := resource.NewPropertyMapFromMap(r.StorageConfig)
			blocks := emptyListValue()
			if b := objectOf(bs["blockStorage"]); len(b) > 0 {
				blocks = listOf(pmap{"enabled": bv(boolOr(b, "enabled", false))})
			}
			out["storageConfigs"] = listOf(pmap{"blockStorages": blocks})
		}
	}
	return out, nil
}

// getOpenIdConnectProvider is aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider
// (internal/service/iam/openid_connect_provider_data_source.go): by arn, or by url among the
// account's providers ("reading IAM OIDC Provider (<url>): ..."); then GetOpenIDConnectProvider
// ("reading IAM OIDC Provider: ..."). url is IAM's, without https://.
func getOpenIDConnectProvider(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	arn, u := str(args, "arn"), str(args, "url")
	if (arn == "") == (u == "") {
		return nil, errors.New("Invalid combination of arguments: \"arn\": one of `arn,url` must be specified")
	}
	if arn == "" {
		list, err := c.iam.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
		if err != nil {
			return nil, fmt.Errorf("reading IAM OIDC Provider (%s): %w", u, err)
		}
		for _, e := range list.OpenIDConnectProviderList {
			if _, rest, ok := strings.Cut(aws.ToString(e.Arn), "/"); ok && rest == strings.TrimPrefix(u, "https://") {
				arn = aws.ToString(e.Arn)
			}
		}
		if arn == "" {
			return nil, fmt.Errorf("reading IAM OIDC Provider (%s): %s", u, couldNotFind)
		}
	}
	out, err := c.iam.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
	if isNotFound(err) {
		return nil, fmt.Errorf("reading IAM OIDC Provider: %s", couldNotFind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading IAM OIDC Provider: %w", err)
	}
	tags := map[string]string{}
	for _, t := range out.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return pmap{
		"arn": sv(arn), "clientIdLists": listValue(out.ClientIDList), "id": sv(arn), "tags": mapValue(tags),
		"thumbprintLists": listValue(out.ThumbprintList), "url": sv(aws.ToString(out.Url)),
	}, nil
}

// getIAMRole is aws:iam/getRole:getRole (internal/service/iam/role_data_source.go: "reading IAM Role
// (%s): %s" around findRoleByName, which answers NoSuchEntity with retry.NotFoundError).
func getIAMRole(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	name := str(args, "name")
	out, err := c.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if isNotFound(err) {
		return nil, fmt.Errorf("reading IAM Role (%s): %s", name, couldNotFind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading IAM Role (%s): %w", name, err)
	}
	r := out.Role
	policy, err := url.QueryUnescape(aws.ToString(r.AssumeRolePolicyDocument))
	if err != nil {
		return nil, err
	}
	boundary := ""
	if r.PermissionsBoundary != nil {
		boundary = aws.ToString(r.PermissionsBoundary.PermissionsBoundaryArn)
	}
	// flattenRoleLastUsed: the region, and the date when IAM has one.
	lastUsed := emptyListValue()
	if u := r.RoleLastUsed; u != nil {
		date := ""
		if u.LastUsedDate != nil {
			date = u.LastUsedDate.UTC().Format(time.RFC3339)
		}
		lastUsed = listOf(pmap{"lastUsedDate": sv(date), "region": sv(aws.ToString(u.Region))})
	}
	tags := map[string]string{}
	for _, t := range r.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return pmap{
		"arn": sv(aws.ToString(r.Arn)), "assumeRolePolicy": sv(policy), "createDate": rfc3339(r.CreateDate),
		"description": sv(aws.ToString(r.Description)), "id": sv(name), "maxSessionDuration": nv(int(aws.ToInt32(r.MaxSessionDuration))),
		"name": sv(aws.ToString(r.RoleName)), "path": sv(aws.ToString(r.Path)), "permissionsBoundary": sv(boundary),
		"roleLastUseds": lastUsed, "tags": mapValue(tags), "uniqueId": sv(aws.ToString(r.RoleId)),
	}, nil
}

// getParameter is aws:ssm/getParameter:getParameter (internal/service/ssm/parameter_data_source.go:
// "reading SSM Parameter (%s): %s" around findParameterByName, which answers ParameterNotFound
// with retry.NotFoundError; with_decryption defaults to true; insecure_value is the value unless
// the parameter is a SecureString).
func getParameter(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	name := str(args, "name")
	decrypt := boolOr(args, "withDecryption", true)
	param, err := c.ssm.getParameter(ctx, name, decrypt)
	if errorCode(err) == "ParameterNotFound" {
		return nil, fmt.Errorf("reading SSM Parameter (%s): %s", name, couldNotFind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading SSM Parameter (%s): %w", name, err)
	}
	insecure := param.Value
	if param.Type == "SecureString" {
		insecure = ""
	}
	return pmap{
		"arn": sv(param.ARN), "id": sv(param.Name), "insecureValue": sv(insecure), "name": sv(param.Name),
		"type": sv(param.Type), "value": sv(param.Value), "version": nv(param.Version), "withDecryption": bv(decrypt),
	}, nil
}

// The reads of an adoption (provider/plan/adoption.go, ReadAdoption): whether each part of a
// running install exists.

// getIAMPolicy is aws:iam/getPolicy:getPolicy by arn or by name (internal/service/iam/policy_data_source.go:
// "reading IAM Policy (%s): %s" around findPolicyByARN, NoSuchEntity as retry.NotFoundError).
func getIAMPolicy(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	arn := str(args, "arn")
	if arn == "" {
		// By name (and path prefix): policy_data_source.go's findPolicies, ListPolicies filtered by
		// name, then tfresource.AssertSingleValueResult (SingularDataSourceFindError's messages).
		var err error
		if arn, err = policyArnByName(ctx, c.iam, str(args, "name"), str(args, "pathPrefix")); err != nil {
			return nil, err
		}
	}
	out, err := c.iam.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if isNotFound(err) {
		return nil, fmt.Errorf("reading IAM Policy (%s): %s", arn, couldNotFind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading IAM Policy (%s): %w", arn, err)
	}
	pol := out.Policy
	document := ""
	if v, err := c.iam.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: pol.Arn, VersionId: pol.DefaultVersionId}); err == nil {
		document, _ = url.QueryUnescape(aws.ToString(v.PolicyVersion.Document))
	}
	tags := map[string]string{}
	for _, t := range pol.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return pmap{
		"arn": sv(arn), "attachmentCount": nv(int(aws.ToInt32(pol.AttachmentCount))), "description": sv(aws.ToString(pol.Description)),
		"id": sv(arn), "name": sv(aws.ToString(pol.PolicyName)), "path": sv(aws.ToString(pol.Path)), "policy": sv(document),
		"policyId": sv(aws.ToString(pol.PolicyId)), "tags": mapValue(tags),
	}, nil
}

// policyArnByName is the ARN of the one policy named name under pathPrefix.
func policyArnByName(ctx context.Context, client *iam.Client, name, pathPrefix string) (string, error) {
	input := &iam.ListPoliciesInput{}
	if pathPrefix != "" {
		input.PathPrefix = aws.String(pathPrefix)
	}
	var arns []string
	pages := iam.NewListPoliciesPaginator(client, input)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return "", fmt.Errorf("reading IAM Policies: %w", err)
		}
		for _, p := range page.Policies {
			if aws.ToString(p.PolicyName) == name {
				arns = append(arns, aws.ToString(p.Arn))
			}
		}
	}
	switch len(arns) {
	case 0:
		return "", errors.New("no matching IAM Policy found")
	case 1:
		return arns[0], nil
	}
	return "", errors.New("multiple IAM Policys matched; use additional constraints to reduce matches to a single IAM Policy")
}

// getSQSQueue is aws:sqs/getQueue:getQueue (internal/service/sqs/queue_data_source.go:
// GetQueueUrl, then the queue's ARN; "reading SQS Queue (%s) URL: %s" when it fails, the SDK's
// error as it is: AWS.SimpleQueueService.NonExistentQueue / QueueDoesNotExist).
func getSQSQueue(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	name := str(args, "name")
	out, err := c.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("reading SQS Queue (%s) URL: %w", name, err)
	}
	queueURL := aws.ToString(out.QueueUrl)
	attrs, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		return nil, fmt.Errorf("reading SQS Queue (%s): %w", queueURL, err)
	}
	return pmap{
		"arn": sv(attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]), "id": sv(queueURL), "name": sv(name),
		"tags": mapValue(map[string]string{}), "url": sv(queueURL),
	}, nil
}

// getAccessEntry is aws:eks/getAccessEntry:getAccessEntry (internal/service/eks/
// access_entry_datasource.go: "reading EKS Access Entry (%s): %s" around findAccessEntryByTwoPartKey,
// ResourceNotFoundException as retry.NotFoundError), answered from the stand-in's EKS record.
func getAccessEntry(_ context.Context, p *provider, args pmap) (pmap, error) {
	id := str(args, "clusterName") + ":" + str(args, "principalArn")
	e, err := p.eks.get(accessEntries, id)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("reading EKS Access Entry (%s): %s", id, couldNotFind)
	}
	out := entryOutputs(e)
	out["id"] = sv(id)
	delete(out, "tags")
	return out, nil
}
