package lab

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// VPC is the cluster's network in moto, as it is before the cluster and the component: a VPC with
// a private subnet in each of three zones (tagged `kubernetes.io/role/internal-elb: 1`, as the EKS
// User Guide asks of private subnets) and the security group of the cluster's nodes, none of them
// tagged for Karpenter — the program passes their ids to the component's `discovery` input, which
// tags them `karpenter.sh/discovery: <cluster>` for the node classes to find.
type VPC struct {
	ID              string
	SubnetIDs       []string // one per zone, in zone order
	Zones           []string
	SecurityGroupID string
}

// seedVPC creates the VPC in moto.
func seedVPC(ctx context.Context, cfg aws.Config) (*VPC, error) {
	cl := ec2.NewFromConfig(cfg)
	vpc, err := cl.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"),
		TagSpecifications: nameTag(ec2types.ResourceTypeVpc, "e2e-cluster-vpc")})
	if err != nil {
		return nil, fmt.Errorf("CreateVpc: %w", err)
	}
	v := &VPC{ID: aws.ToString(vpc.Vpc.VpcId)}
	for i, zone := range []string{"a", "b", "c"} {
		az := Region + zone
		sn, err := cl.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, AvailabilityZone: aws.String(az),
			CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", 32*(i+1))),
			TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSubnet, Tags: []ec2types.Tag{
				{Key: aws.String("Name"), Value: aws.String("e2e-cluster-private-" + az)},
				{Key: aws.String("kubernetes.io/role/internal-elb"), Value: aws.String("1")}}}}})
		if err != nil {
			return nil, fmt.Errorf("CreateSubnet %s: %w", az, err)
		}
		v.SubnetIDs = append(v.SubnetIDs, aws.ToString(sn.Subnet.SubnetId))
		v.Zones = append(v.Zones, az)
	}
	sg, err := cl.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: vpc.Vpc.VpcId,
		GroupName: aws.String("e2e-cluster-node"), Description: aws.String("the cluster's nodes")})
	if err != nil {
		return nil, fmt.Errorf("CreateSecurityGroup: %w", err)
	}
	v.SecurityGroupID = aws.ToString(sg.GroupId)
	return v, nil
}

func nameTag(rt ec2types.ResourceType, name string) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: []ec2types.Tag{{Key: aws.String("Name"), Value: aws.String(name)}}}}
}

// SeedSpotServiceLinkedRole creates the account's AWSServiceRoleForEC2Spot in moto, as an account
// that has used Spot has it (EC2 refuses Spot launches without it; the component checks for it).
func (w *World) SeedSpotServiceLinkedRole(ctx context.Context) error {
	_, err := iam.NewFromConfig(w.AWS).CreateServiceLinkedRole(ctx, &iam.CreateServiceLinkedRoleInput{AWSServiceName: aws.String("spot.amazonaws.com")})
	if err != nil {
		return fmt.Errorf("CreateServiceLinkedRole spot.amazonaws.com: %w", err)
	}
	return nil
}

// Instance is an EC2 instance in moto.
type Instance struct {
	ID, Type, State, Zone, SubnetID, ImageID, Lifecycle string
	LaunchTemplate                                      string // the launch template it was launched from (aws:ec2launchtemplate:id tag)
	Tags                                                map[string]string
}

// LaunchTemplate is an EC2 launch template in moto.
type LaunchTemplate struct {
	ID, Name string
	Tags     map[string]string
	// Of its default version: the instance profile and security groups it launches with.
	InstanceProfile  string
	SecurityGroupIDs []string
	HopLimit         int32 // metadata options' HttpPutResponseHopLimit (0: unset)
}

// ReadEC2 lists moto's instances (every state) and launch templates.
func ReadEC2(ctx context.Context, cfg aws.Config) ([]Instance, []LaunchTemplate, error) {
	cl := ec2.NewFromConfig(cfg)
	var instances []Instance
	p := ec2.NewDescribeInstancesPaginator(cl, &ec2.DescribeInstancesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("DescribeInstances: %w", err)
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				in := Instance{ID: aws.ToString(i.InstanceId), Type: string(i.InstanceType), State: string(i.State.Name),
					SubnetID: aws.ToString(i.SubnetId), ImageID: aws.ToString(i.ImageId), Lifecycle: string(i.InstanceLifecycle),
					Tags: map[string]string{}}
				if i.Placement != nil {
					in.Zone = aws.ToString(i.Placement.AvailabilityZone)
				}
				for _, t := range i.Tags {
					in.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
				}
				in.LaunchTemplate = in.Tags["aws:ec2launchtemplate:id"]
				instances = append(instances, in)
			}
		}
	}
	sort.Slice(instances, func(a, b int) bool { return instances[a].ID < instances[b].ID })
	var templates []LaunchTemplate
	lts, err := cl.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{})
	if err != nil {
		return nil, nil, fmt.Errorf("DescribeLaunchTemplates: %w", err)
	}
	for _, lt := range lts.LaunchTemplates {
		t := LaunchTemplate{ID: aws.ToString(lt.LaunchTemplateId), Name: aws.ToString(lt.LaunchTemplateName), Tags: map[string]string{}}
		for _, tag := range lt.Tags {
			t.Tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		vs, err := cl.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
			LaunchTemplateId: lt.LaunchTemplateId, Versions: []string{"$Default"}})
		if err != nil {
			return nil, nil, fmt.Errorf("DescribeLaunchTemplateVersions %s: %w", t.Name, err)
		}
		if len(vs.LaunchTemplateVersions) > 0 {
			d := vs.LaunchTemplateVersions[0].LaunchTemplateData
			if d.IamInstanceProfile != nil {
				t.InstanceProfile = aws.ToString(d.IamInstanceProfile.Name)
			}
			t.SecurityGroupIDs = d.SecurityGroupIds
			if d.MetadataOptions != nil {
				t.HopLimit = aws.ToInt32(d.MetadataOptions.HttpPutResponseHopLimit)
			}
			for _, ni := range d.NetworkInterfaces {
				t.SecurityGroupIDs = append(t.SecurityGroupIDs, ni.Groups...)
			}
		}
		templates = append(templates, t)
	}
	sort.Slice(templates, func(a, b int) bool { return templates[a].Name < templates[b].Name })
	return instances, templates, nil
}
