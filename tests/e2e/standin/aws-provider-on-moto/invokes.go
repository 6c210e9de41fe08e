package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// The functions the component invokes (provider/children/resources.go), answered as pulumi-aws 6.83.2
// answers them: getRegion returns `name` (and id, description, endpoint), and `region` too only
// when the stand-in answers as 7.48.0 (pulumi_aws_versions.go). All are reads: the stand-in answers them in
// previews as in updates.

type invokeFunc func(ctx context.Context, p *provider, args pmap) (pmap, error)

var invokes = map[string]invokeFunc{
	"aws:index/getPartition:getPartition":           getPartition,
	"aws:index/getRegion:getRegion":                 getRegion,
	"aws:index/getCallerIdentity:getCallerIdentity": getCallerIdentity,
	"aws:eks/getAddon:getAddon":                     getAddon,
	"aws:iam/getInstanceProfile:getInstanceProfile": getInstanceProfile,
	// The reads the component checks its inputs with against the cluster (invokes_reads.go,
	// invokes_ec2.go).
	"aws:eks/getCluster:getCluster":                             getCluster,
	"aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider": getOpenIDConnectProvider,
	"aws:iam/getRole:getRole":                                   getIAMRole,
	"aws:ssm/getParameter:getParameter":                         getParameter,
	"aws:ec2/getSubnets:getSubnets":                             getSubnets,
	"aws:ec2/getSubnet:getSubnet":                               getSubnet,
	"aws:ec2/getSecurityGroups:getSecurityGroups":               getSecurityGroups,
	"aws:ec2/getVpc:getVpc":                                     getVpc,
	// An adoption's reads of which parts of the install exist (invokes_reads.go).
	"aws:iam/getPolicy:getPolicy":           getIAMPolicy,
	"aws:sqs/getQueue:getQueue":             getSQSQueue,
	"aws:eks/getAccessEntry:getAccessEntry": getAccessEntry,
}

// inputCheckInvokes are the reads served for the component's checks of its inputs against the
// cluster, which provider/children/resources.go may or may not list yet (TestServesTheComponentTokens
// accepts either).
var inputCheckInvokes = []string{
	"aws:eks/getCluster:getCluster", "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider", "aws:iam/getRole:getRole",
	"aws:ssm/getParameter:getParameter", "aws:ec2/getSubnets:getSubnets", "aws:ec2/getSubnet:getSubnet",
	"aws:ec2/getSecurityGroups:getSecurityGroups", "aws:ec2/getVpc:getVpc",
}

// partitionOf is the partition of a region, as the AWS SDK's endpoint metadata has it.
func partitionOf(region string) (partition, dnsSuffix, reverseDNS string) {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn", "amazonaws.com.cn", "cn.com.amazonaws"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov", "amazonaws.com", "com.amazonaws"
	case strings.HasPrefix(region, "us-iso-"):
		return "aws-iso", "c2s.ic.gov", "gov.ic.c2s"
	case strings.HasPrefix(region, "us-isob-"):
		return "aws-iso-b", "sc2s.sgov.gov", "gov.sgov.sc2s"
	}
	return "aws", "amazonaws.com", "com.amazonaws"
}

// regionDescriptions are the descriptions of the AWS SDK's region metadata for the regions the
// tests and examples use; getRegion answers "" for others.
var regionDescriptions = map[string]string{
	"us-east-1":      "US East (N. Virginia)",
	"us-east-2":      "US East (Ohio)",
	"us-west-1":      "US West (N. California)",
	"us-west-2":      "US West (Oregon)",
	"eu-west-1":      "Europe (Ireland)",
	"eu-central-1":   "Europe (Frankfurt)",
	"ap-southeast-1": "Asia Pacific (Singapore)",
	"cn-north-1":     "China (Beijing)",
	"us-gov-west-1":  "AWS GovCloud (US-West)",
}

func getPartition(_ context.Context, p *provider, _ pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	partition, dns, reverse := partitionOf(c.region)
	return pmap{"dnsSuffix": sv(dns), "id": sv(partition), "partition": sv(partition), "reverseDnsPrefix": sv(reverse)}, nil
}

func getRegion(_ context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	region := c.region
	if n := str(args, "name"); n != "" {
		region = n
	}
	if r := str(args, "region"); r != "" && v7() {
		region = r
	}
	_, dns, _ := partitionOf(region)
	out := pmap{
		"description": sv(regionDescriptions[region]),
		"endpoint":    sv(fmt.Sprintf("ec2.%s.%s", region, dns)),
		"id":          sv(region),
		"name":        sv(region),
	}
	if v7() {
		out["region"] = sv(region) // v7's name for it (`name` is deprecated there)
	}
	return out, nil
}

func getCallerIdentity(ctx context.Context, p *provider, _ pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	out, err := c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return nil, fmt.Errorf("getting caller identity: %w", err)
	}
	return pmap{
		"accountId": sv(aws.ToString(out.Account)),
		"arn":       sv(aws.ToString(out.Arn)),
		"id":        sv(aws.ToString(out.Account)),
		"userId":    sv(aws.ToString(out.UserId)),
	}, nil
}

func getAddon(_ context.Context, p *provider, args pmap) (pmap, error) {
	id := str(args, "clusterName") + ":" + str(args, "addonName")
	e, err := p.eks.get(addons, id)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("reading EKS Add-On (%s): ResourceNotFoundException: No addon: %s found in cluster: %s "+
			"(looked up in the %s's record: moto has no EKS add-ons)", id, str(args, "addonName"), str(args, "clusterName"), standIn)
	}
	out := entryOutputs(e)
	out["id"] = sv(id)
	if _, ok := out["podIdentityAssociations"]; !ok {
		out["podIdentityAssociations"] = resource.NewArrayProperty(nil)
	}
	return out, nil
}

func getInstanceProfile(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	name := str(args, "name")
	out, err := c.iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("reading IAM Instance Profile (%s): %w", name, err)
	}
	ip := out.InstanceProfile
	res := pmap{
		"arn":        sv(aws.ToString(ip.Arn)),
		"createDate": rfc3339(ip.CreateDate),
		"id":         sv(aws.ToString(ip.InstanceProfileName)),
		"name":       sv(aws.ToString(ip.InstanceProfileName)),
		"path":       sv(aws.ToString(ip.Path)),
		"roleArn":    sv(""),
		"roleId":     sv(""),
		"roleName":   sv(""),
	}
	if len(ip.Roles) > 0 {
		r := ip.Roles[0]
		res["roleArn"], res["roleId"], res["roleName"] = sv(aws.ToString(r.Arn)), sv(aws.ToString(r.RoleId)), sv(aws.ToString(r.RoleName))
	}
	return res, nil
}
