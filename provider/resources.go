package provider

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// The component registers its children by type token, inputs and provider version — exactly
// what the pulumi-aws and pulumi-kubernetes Go SDKs send, without linking those SDKs: they
// would add about 100 MB to the plugin and slow its start (see README, Performance).

// Provider versions the children are registered with, as the SDKs at these versions would.
const (
	awsVersion        = "6.83.2"
	kubernetesVersion = "4.30.0"
)

// Type tokens of the children.
const (
	iamRole                    = "aws:iam/role:Role"
	iamPolicy                  = "aws:iam/policy:Policy"
	iamRolePolicyAttach        = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
	iamInstanceProfile         = "aws:iam/instanceProfile:InstanceProfile"
	iamServiceLinkedRole       = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
	sqsQueue                   = "aws:sqs/queue:Queue"
	sqsQueuePolicy             = "aws:sqs/queuePolicy:QueuePolicy"
	eventRule                  = "aws:cloudwatch/eventRule:EventRule"
	eventTarget                = "aws:cloudwatch/eventTarget:EventTarget"
	eksAccessEntry             = "aws:eks/accessEntry:AccessEntry"
	eksAccessPolicyAssociation = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
	eksAddon                   = "aws:eks/addon:Addon"
	eksPodIdentity             = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
	ec2Tag                     = "aws:ec2/tag:Tag"
	helmRelease                = "kubernetes:helm.sh/v3:Release"
	configMap                  = "kubernetes:core/v1:ConfigMap"
	configMapPatch             = "kubernetes:core/v1:ConfigMapPatch"
	invokePartition            = "aws:index/getPartition:getPartition"
	invokeRegion               = "aws:index/getRegion:getRegion"
	invokeCallerIdentity       = "aws:index/getCallerIdentity:getCallerIdentity"
	invokeAddon                = "aws:eks/getAddon:getAddon"
	invokeInstanceProfile      = "aws:iam/getInstanceProfile:getInstanceProfile"
)

// child is a registered child and the outputs the component reads from it. A type without an
// output leaves its field empty.
type child struct {
	pulumi.CustomResourceState
	Arn  pulumi.StringOutput `pulumi:"arn"`
	Name pulumi.StringOutput `pulumi:"name"`
	Url  pulumi.StringOutput `pulumi:"url"`
	// PrincipalArn: an access entry's principal.
	PrincipalArn pulumi.StringOutput    `pulumi:"principalArn"`
	Data         pulumi.StringMapOutput `pulumi:"data"`
}

// newChild registers a child of the component. Inputs that are nil (optional and unset) are
// left out, as the SDKs leave them out.
func (b *builder) newChild(token, suffix string, inputs pulumi.Map, opts ...pulumi.ResourceOption) (*child, error) {
	var c child
	err := b.ctx.RegisterResource(token, b.childName(suffix), compact(inputs), &c, b.opts(append(versionOf(token), opts...)...)...)
	return &c, err
}

// readChild reads an existing object the component does not own.
func (b *builder) readChild(token, suffix, id string) (*child, error) {
	var c child
	err := b.ctx.ReadResource(token, b.childName(suffix), pulumi.ID(id), nil, &c, b.opts(versionOf(token)...)...)
	return &c, err
}

// invoke calls a provider function through the component's providers. Under render it also
// notes which result fields the component reads (render_invokes.go).
func (b *builder) invoke(token string, args, result any) error {
	if rec := registrationRecorderFrom(b.ctx.Context()); rec != nil {
		rec.recordReads(token, resultFields(result))
	}
	return b.ctx.Invoke(token, args, result, pulumi.Parent(b.parent), pulumi.Version(awsVersion))
}

func versionOf(token string) []pulumi.ResourceOption {
	if len(token) > len("kubernetes:") && token[:len("kubernetes:")] == "kubernetes:" {
		return []pulumi.ResourceOption{pulumi.Version(kubernetesVersion)}
	}
	return []pulumi.ResourceOption{pulumi.Version(awsVersion)}
}

func compact(m pulumi.Map) pulumi.Map {
	out := pulumi.Map{}
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}
