package children

// The component registers its children by type token, inputs and provider version — exactly
// what the pulumi-aws and pulumi-kubernetes Go SDKs send, without linking those SDKs: they
// would add about 100 MB to the plugin and slow its start (see CONTRIBUTING.md, Performance).

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Provider versions the children are registered with, as the SDKs at these versions would.
const (
	AWSVersion        = "6.83.2"
	KubernetesVersion = "4.30.0"
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
	crdPatch                   = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinitionPatch"
	crdType                    = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
	InvokePartition            = "aws:index/getPartition:getPartition"
	InvokeRegion               = "aws:index/getRegion:getRegion"
	InvokeCallerIdentity       = "aws:index/getCallerIdentity:getCallerIdentity"
	invokeAddon                = "aws:eks/getAddon:getAddon"
	InvokeInstanceProfile      = "aws:iam/getInstanceProfile:getInstanceProfile"
	// The cluster checks' reads (readcluster.go).
	InvokeCluster        = "aws:eks/getCluster:getCluster"
	InvokeOIDCProvider   = "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider"
	InvokeSubnets        = "aws:ec2/getSubnets:getSubnets"
	InvokeSubnet         = "aws:ec2/getSubnet:getSubnet"
	InvokeSecurityGroups = "aws:ec2/getSecurityGroups:getSecurityGroups"
	InvokeParameter      = "aws:ssm/getParameter:getParameter"
	InvokeRole           = "aws:iam/getRole:getRole"
	// An adoption's reads of which parts of the install exist (plan.ReadAdoption).
	InvokePolicy      = "aws:iam/getPolicy:getPolicy"
	InvokeQueue       = "aws:sqs/getQueue:getQueue"
	InvokeAccessEntry = "aws:eks/getAccessEntry:getAccessEntry"
)

// Child is a registered child and the outputs the component reads from it. A type without an
// output leaves its field empty.
type Child struct {
	pulumi.CustomResourceState
	Arn  pulumi.StringOutput `pulumi:"arn"`
	Name pulumi.StringOutput `pulumi:"name"`
	Url  pulumi.StringOutput `pulumi:"url"`
	// PrincipalArn: an access entry's principal.
	PrincipalArn pulumi.StringOutput    `pulumi:"principalArn"`
	Data         pulumi.StringMapOutput `pulumi:"data"`
	// Metadata: a Kubernetes object's (the field managers of aws-auth, a CRD's Helm owner).
	Metadata pulumi.MapOutput `pulumi:"metadata"`
	// Values: a Helm release's user-supplied values.
	Values pulumi.MapOutput `pulumi:"values"`
	// Spec: a custom resource's (an adopted NodePool or node class as it runs).
	Spec pulumi.MapOutput `pulumi:"spec"`
}

// newChild registers a child of the component. Inputs that are nil (optional and unset) are
// left out, as the SDKs leave them out.
func (b *builder) newChild(token, suffix string, inputs pulumi.Map, opts ...pulumi.ResourceOption) (*Child, error) {
	var c Child
	err := b.ctx.RegisterResource(token, b.childName(suffix), compact(inputs), &c, b.opts(append(VersionOf(token), opts...)...)...)
	return &c, err
}

// readChild reads an existing object the component does not own. A read creates nothing, so it
// does not wait for the input gate: the gate may check what it read.
func (b *builder) readChild(token, suffix, id string) (*Child, error) {
	var c Child
	err := b.ctx.ReadResource(token, b.childName(suffix), pulumi.ID(id), nil, &c, append([]pulumi.ResourceOption{pulumi.Parent(b.parent)}, VersionOf(token)...)...)
	return &c, err
}

// invoke calls a provider function through the component's providers. Under render it also
// notes which result fields the component reads (provider/render/invokes.go).
func (b *builder) invoke(token string, args, result any) error {
	return invoke(b.ctx, b.parent, token, args, result)
}

func VersionOf(token string) []pulumi.ResourceOption {
	if len(token) > len("kubernetes:") && token[:len("kubernetes:")] == "kubernetes:" {
		return []pulumi.ResourceOption{pulumi.Version(KubernetesVersion)}
	}
	return []pulumi.ResourceOption{pulumi.Version(AWSVersion)}
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

// recorder is told what a component registers and which invoke results it reads: `render`
// (provider/render) passes one in the context, to report both.
type recorder interface {
	Record(args *pulumi.ResourceTransformationArgs) *pulumi.ResourceTransformationResult
	RecordReads(token string, result any)
}

type recorderKey struct{}

// WithRecorder hands a recorder to the components constructed under ctx.
func WithRecorder(ctx context.Context, r recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

func recorderFrom(ctx context.Context) recorder {
	r, _ := ctx.Value(recorderKey{}).(recorder)
	return r
}
