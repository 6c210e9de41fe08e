package provider

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Karpenter is the component resource: everything Karpenter needs on one EKS cluster.
type Karpenter struct {
	pulumi.ResourceState

	ControllerRoleArn     pulumi.StringOutput        `pulumi:"controllerRoleArn"`
	ControllerRoleName    pulumi.StringOutput        `pulumi:"controllerRoleName"`
	ControllerPolicyArns  pulumi.StringArrayOutput   `pulumi:"controllerPolicyArns"`
	NodeRoleArn           pulumi.StringOutput        `pulumi:"nodeRoleArn"`
	NodeRoleName          pulumi.StringOutput        `pulumi:"nodeRoleName"`
	InstanceProfileName   pulumi.StringOutput        `pulumi:"instanceProfileName"`
	NodeRoleMapping       children.RoleMappingOutput `pulumi:"nodeRoleMapping"`
	InterruptionQueueName pulumi.StringOutput        `pulumi:"interruptionQueueName"`
	InterruptionQueueArn  pulumi.StringOutput        `pulumi:"interruptionQueueArn"`
	InterruptionQueueUrl  pulumi.StringOutput        `pulumi:"interruptionQueueUrl"`
	Namespace             pulumi.StringOutput        `pulumi:"namespace"`
	ServiceAccountName    pulumi.StringOutput        `pulumi:"serviceAccountName"`
	ReleaseName           pulumi.StringOutput        `pulumi:"releaseName"`
	CrdReleaseName        pulumi.StringOutput        `pulumi:"crdReleaseName"`
	Version               pulumi.StringOutput        `pulumi:"version"`
	NodePoolNames         pulumi.StringArrayOutput   `pulumi:"nodePoolNames"`
	NodeClassNames        pulumi.StringArrayOutput   `pulumi:"nodeClassNames"`
	Mode                  pulumi.StringOutput        `pulumi:"mode"`
}

// Annotate documents the component and its outputs.
func (k *Karpenter) Annotate(an infer.Annotator) {
	an.Describe(&k, "Installs Karpenter on an EKS cluster: controller and node IAM, the interruption queue and its EventBridge rules, the `karpenter-crd` and `karpenter` Helm releases, and the NodePools and EC2NodeClasses. Children are created in dependency order (IAM and queue, CRDs, controller, custom resources) so that a destroy removes the custom resources first, while Karpenter still runs and can terminate its nodes."+
		exampleUsage("karpenter", "Install Karpenter on an existing EKS cluster"))
	an.Describe(&k.ControllerRoleArn, "ARN of the controller's IAM role (created, or `controllerRoleArn`).")
	an.Describe(&k.ControllerRoleName, "Name of the controller's IAM role.")
	an.Describe(&k.ControllerPolicyArns, "ARNs of the managed policies the component created for the controller (empty with `controllerRoleArn`).")
	an.Describe(&k.NodeRoleArn, "ARN of the node IAM role (created, or `nodeRoleArn`).")
	an.Describe(&k.NodeRoleName, "Name of the node IAM role; the default EC2NodeClass's `role`.")
	an.Describe(&k.NodeRoleMapping, "The node role's entry for `kube-system/aws-auth`'s `mapRoles` (`roleArn` without the role's path, which aws-auth does not take; `username`, `groups`; as pulumi-eks's `roleMappings` take it): what the owner of aws-auth adds when the component does not write it (`nodeAccess: none`; docs/configuration.md, Node access).")
	an.Describe(&k.InstanceProfileName, "Name of the node instance profile; empty when none was created.")
	an.Describe(&k.InterruptionQueueName, "Name of the interruption queue (`settings.interruptionQueue`); empty when interruption handling is off.")
	an.Describe(&k.InterruptionQueueArn, "ARN of the interruption queue; empty when interruption handling is off.")
	an.Describe(&k.InterruptionQueueUrl, "URL of the interruption queue; empty when interruption handling is off.")
	an.Describe(&k.Namespace, "Namespace of the Karpenter releases.")
	an.Describe(&k.ServiceAccountName, "Name of the controller's service account.")
	an.Describe(&k.ReleaseName, "Name of the controller Helm release (`karpenter`).")
	an.Describe(&k.CrdReleaseName, "Name of the CRD Helm release (`karpenter-crd`); empty when `installCrds` is off.")
	an.Describe(&k.Version, "The Karpenter version installed; empty with mode `autoMode`.")
	an.Describe(&k.NodePoolNames, "Names of the NodePools created.")
	an.Describe(&k.NodeClassNames, "Names of the node classes created (EC2NodeClasses, or Auto Mode NodeClasses).")
	an.Describe(&k.Mode, "`selfManaged` or `autoMode`. With `autoMode` the controller, queue, release and version outputs are empty.")
}

// NewKarpenter builds the component. Everything a user can get wrong in plain inputs, and every
// input the cluster disagrees with, is checked before the first child is registered, so bad
// input creates nothing.
func NewKarpenter(ctx *pulumi.Context, name string, args inputs.KarpenterArgs, known plan.Known, opts ...pulumi.ResourceOption) (*Karpenter, error) {
	comp := &Karpenter{}
	if err := children.RegisterComponent(ctx, componentToken, name, comp, opts...); err != nil {
		return nil, err
	}
	// The cluster decides defaults (node access, the Kubernetes version, the endpoint), so it
	// is read before the plan; the rest of what the checks read depends on the plan.
	cluster := children.ReadCluster(ctx, comp, plan.ClusterToRead(args, known))
	p, err := plan.New(name, args, known, cluster.Cluster)
	if err != nil {
		return nil, err
	}
	children.ResumeAdoption(ctx, comp, p, cluster)
	if err := children.CheckCluster(ctx, comp, p, cluster); err != nil {
		return nil, err
	}
	children.Warn(ctx, comp, p)

	out, err := children.Install(ctx, comp, p)
	if err != nil {
		return nil, err
	}
	comp.setOutputs(out)
	return comp, nil
}

// setOutputs copies what the children layer reported into the component's outputs.
func (c *Karpenter) setOutputs(out children.Outputs) {
	c.ControllerRoleArn, c.ControllerRoleName, c.ControllerPolicyArns = out.ControllerRoleArn, out.ControllerRoleName, out.ControllerPolicyArns
	c.NodeRoleArn, c.NodeRoleName, c.InstanceProfileName = out.NodeRoleArn, out.NodeRoleName, out.InstanceProfileName
	c.NodeRoleMapping = out.NodeRoleMapping
	c.InterruptionQueueName, c.InterruptionQueueArn, c.InterruptionQueueUrl = out.InterruptionQueueName, out.InterruptionQueueArn, out.InterruptionQueueUrl
	c.Namespace, c.ServiceAccountName = out.Namespace, out.ServiceAccountName
	c.ReleaseName, c.CrdReleaseName, c.Version, c.Mode = out.ReleaseName, out.CrdReleaseName, out.Version, out.Mode
	c.NodePoolNames, c.NodeClassNames = out.NodePoolNames, out.NodeClassNames
}
