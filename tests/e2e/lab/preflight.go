package lab

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// preflight reads, from moto and before the call is forwarded, what IAM would look at on the
// existing resources a call acts on: their tags (aws:ResourceTag), an instance profile's path (its
// ARN), the launch templates a launch uses. Errors are recorded in the call as missing data, which
// the IAM check then reports.
func (r *AWSRecorder) preflight(ctx context.Context, c *AWSCall) {
	c.ResourceTags = map[string]map[string]string{}
	switch c.Service + ":" + c.Action {
	case "ec2:TerminateInstances", "ec2:CreateTags":
		param := "InstanceId"
		if c.Action == "CreateTags" {
			param = "ResourceId"
		}
		var ids []string
		for _, id := range c.ListParam(param) {
			if strings.HasPrefix(id, "i-") {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return
		}
		out, err := r.moto.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: ids})
		if err != nil {
			return
		}
		for _, res := range out.Reservations {
			for _, i := range res.Instances {
				tags := map[string]string{}
				for _, t := range i.Tags {
					tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
				}
				c.ResourceTags[r.arn("ec2", "instance/"+aws.ToString(i.InstanceId))] = tags
			}
		}
	case "ec2:DeleteLaunchTemplate":
		if lt, ok := r.launchTemplate(ctx, c.Params.Get("LaunchTemplateId"), c.Params.Get("LaunchTemplateName"), ""); ok {
			c.ResourceTags[r.arn("ec2", "launch-template/"+lt.ID)] = lt.Tags
		}
	case "ec2:CreateFleet":
		for i := 1; ; i++ {
			prefix := fmt.Sprintf("LaunchTemplateConfigs.%d.LaunchTemplateSpecification.", i)
			id, name := c.Params.Get(prefix+"LaunchTemplateId"), c.Params.Get(prefix+"LaunchTemplateName")
			if id == "" && name == "" {
				break
			}
			if lt, ok := r.launchTemplate(ctx, id, name, c.Params.Get(prefix+"Version")); ok {
				for m := 1; ; m++ {
					typ := c.Params.Get(fmt.Sprintf("LaunchTemplateConfigs.%d.Overrides.%d.InstanceType", i, m))
					if typ == "" {
						break
					}
					lt.InstanceTypes = append(lt.InstanceTypes, typ)
				}
				c.LaunchTemplates = append(c.LaunchTemplates, lt)
			}
		}
	case "ec2:RunInstances":
		if lt, ok := r.launchTemplate(ctx, c.Params.Get("LaunchTemplate.LaunchTemplateId"), c.Params.Get("LaunchTemplate.LaunchTemplateName"),
			c.Params.Get("LaunchTemplate.Version")); ok {
			c.LaunchTemplates = append(c.LaunchTemplates, lt)
		}
	case "iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile",
		"iam:TagInstanceProfile", "iam:UntagInstanceProfile", "iam:GetInstanceProfile":
		name := c.Params.Get("InstanceProfileName")
		cl := iam.NewFromConfig(r.moto.cfg)
		p, err := cl.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
		if err != nil {
			return // it does not exist (GetInstanceProfile's 404): no resource tags
		}
		// (moto 5.2.5 has no ListInstanceProfileTags; GetInstanceProfile returns the tags.)
		tags := map[string]string{}
		for _, tag := range p.InstanceProfile.Tags {
			tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		c.ResourceTags[aws.ToString(p.InstanceProfile.Arn)] = tags
	}
}

func (r *AWSRecorder) arn(service, resource string) string {
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s", service, Region, MotoAccount, resource)
}

// MotoAccount is moto's default account.
const MotoAccount = "123456789012"

// launchTemplate reads a launch template (by id or name) and the version a launch uses.
func (r *AWSRecorder) launchTemplate(ctx context.Context, id, name, version string) (LaunchTemplateData, bool) {
	in := &ec2.DescribeLaunchTemplatesInput{}
	if id != "" {
		in.LaunchTemplateIds = []string{id}
	} else {
		in.LaunchTemplateNames = []string{name}
	}
	out, err := r.moto.ec2.DescribeLaunchTemplates(ctx, in)
	if err != nil || len(out.LaunchTemplates) != 1 {
		return LaunchTemplateData{}, false
	}
	t := out.LaunchTemplates[0]
	lt := LaunchTemplateData{ID: aws.ToString(t.LaunchTemplateId), Name: aws.ToString(t.LaunchTemplateName),
		Tags: map[string]string{}, TagSpecs: map[string]map[string]string{}}
	for _, tag := range t.Tags {
		lt.Tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	if version == "" {
		version = "$Default"
	}
	vs, err := r.moto.ec2.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: t.LaunchTemplateId, Versions: []string{version}})
	if err != nil || len(vs.LaunchTemplateVersions) == 0 {
		return lt, true
	}
	d := vs.LaunchTemplateVersions[0].LaunchTemplateData
	lt.ImageID = aws.ToString(d.ImageId)
	if d.MetadataOptions != nil {
		lt.HopLimit = aws.ToInt32(d.MetadataOptions.HttpPutResponseHopLimit)
	}
	lt.SecurityGroupIDs = append(lt.SecurityGroupIDs, d.SecurityGroupIds...)
	for _, ni := range d.NetworkInterfaces {
		lt.SecurityGroupIDs = append(lt.SecurityGroupIDs, ni.Groups...)
	}
	sort.Strings(lt.SecurityGroupIDs)
	for _, spec := range d.TagSpecifications {
		tags := map[string]string{}
		for _, tag := range spec.Tags {
			tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		lt.TagSpecs[string(spec.ResourceType)] = tags
	}
	if d.IamInstanceProfile != nil {
		lt.InstanceProfile = aws.ToString(d.IamInstanceProfile.Name)
		if p, err := iam.NewFromConfig(r.moto.cfg).GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{
			InstanceProfileName: d.IamInstanceProfile.Name}); err == nil && len(p.InstanceProfile.Roles) == 1 {
			lt.RoleArn = aws.ToString(p.InstanceProfile.Roles[0].Arn)
		}
	}
	return lt, true
}
