package children

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// RegisterComponent registers a component of this package (under render, noting the
// registration order of its children).
func RegisterComponent(ctx *pulumi.Context, token, name string, comp pulumi.ComponentResource, opts ...pulumi.ResourceOption) error {
	if rec := recorderFrom(ctx.Context()); rec != nil {
		opts = append(opts, pulumi.Transformations([]pulumi.ResourceTransformation{rec.Record}))
	}
	return ctx.RegisterComponentResource(token, name, comp, opts...)
}

// Warn says the plan's warnings on the component (Plan.Warnings), once each.
func Warn(ctx *pulumi.Context, comp pulumi.Resource, p *plan.Plan) {
	for _, w := range p.Warnings() {
		_ = ctx.Log.Warn(w.String(), &pulumi.LogArgs{Resource: comp})
	}
}

// builder registers the component's children. Each create* method returns what later
// children need, so the dependency order reads top to bottom in install.
type builder struct {
	ctx *pulumi.Context
	// parent is the component the children belong to: a Karpenter, NodePool or NodeClass.
	parent pulumi.Resource
	plan   *plan.Plan
	aws    catalog.AwsScope
	// gate fails every child's registration when an Input value (known only once resolved)
	// is invalid, so bad input creates nothing even when it was unknown during preview.
	gate pulumi.ResourceArrayOutput

	// node is the node IAM, registered first: the chart values and the default node class
	// name its role and instance profile.
	node nodeIAM
	// awsAuth is kube-system/aws-auth as read before any child, when node access is a mapping in it.
	awsAuth *Child
}

// installed is what the outputs report of the children: the controller's IAM and the queue
// (nil without interruption handling) besides the node IAM.
type installed struct {
	controller controllerIAM
	queue      *interruptionQueue
}

// Install registers the children of a Karpenter component as plan says, under comp, and
// returns the component's outputs.
func Install(ctx *pulumi.Context, comp pulumi.Resource, p *plan.Plan) (Outputs, error) {
	// Registration runs on a fresh goroutine: the SDK records the Go stack of every
	// registration, and the construct call stack (gRPC, middleware) is deep enough to make that
	// the largest cost of a Construct.
	var b *builder
	var in installed
	done := make(chan error, 1)
	go func() {
		var err error
		if b, err = newBuilder(ctx, comp, p); err == nil {
			in, err = b.install()
		}
		done <- err
	}()
	if err := <-done; err != nil {
		return Outputs{}, err
	}
	return b.outputs(in), nil
}

func newBuilder(ctx *pulumi.Context, comp pulumi.Resource, p *plan.Plan) (*builder, error) {
	b := &builder{ctx: ctx, parent: comp, plan: p}
	aws, err := b.resolveAWSScope()
	if err != nil {
		return nil, err
	}
	b.aws = aws
	if err := b.readAdoption(); err != nil {
		return nil, err
	}
	if err := b.checkAdoptedDrift(); err != nil {
		return nil, err
	}
	if err := b.checkCRDBounds(); err != nil {
		return nil, err
	}
	if p.NodeAccess == inputs.NodeAccessAwsAuth {
		// Read before the gate, which checks who owns its mapRoles.
		if b.awsAuth, err = b.readChild(configMap, "-aws-auth-current", "kube-system/aws-auth"); err != nil {
			return nil, err
		}
	}
	b.gate = b.validateInputs()
	return b, nil
}

// install registers the children in dependency order.
func (b *builder) install() (in installed, err error) {
	if b.node, err = b.createNodeIAM(); err != nil {
		return in, err
	}
	createAccess := b.createNodeAccess
	if b.plan.Release.IsAutoMode() && b.plan.NodeAccess == inputs.NodeAccessEntry {
		createAccess = b.createAutoModeNodeAccess
	}
	access, err := createAccess(b.node.roleArn)
	if err != nil {
		return in, err
	}
	discovery, err := b.createDiscoveryTags()
	if err != nil {
		return in, err
	}
	// Node classes need the nodes' IAM, their access to the cluster and the discovery tags
	// for as long as nodes exist.
	nodeDeps := slices.Concat(b.node.resources, access, discovery)
	if b.plan.Release.IsAutoMode() {
		// EKS runs Karpenter: no queue, controller IAM or releases; the classes and pools go
		// straight onto the CRDs EKS installed.
		spotRole, err := b.createSpotServiceLinkedRole()
		if err != nil {
			return in, err
		}
		return in, b.createCustomResources(slices.Concat(nodeDeps, spotRole))
	}

	queueArn := ""
	if b.plan.Interruption {
		queue, err := b.createInterruptionQueue()
		if err != nil {
			return in, err
		}
		in.queue, queueArn = &queue, queue.knownArn
	}
	if in.controller, err = b.createControllerIAM(b.node, queueArn); err != nil {
		return in, err
	}
	podIdentity, err := b.createPodIdentity(in.controller.roleArn)
	if err != nil {
		return in, err
	}
	spotRole, err := b.createSpotServiceLinkedRole()
	if err != nil {
		return in, err
	}
	crd, err := b.createCrdRelease()
	if err != nil {
		return in, err
	}

	// The controller starts only once its permissions, credentials, queue and CRDs exist; on
	// destroy it is removed before any of them, and the custom resources go before it.
	releaseDeps := slices.Concat(in.controller.resources, podIdentity, spotRole)
	if in.queue != nil {
		releaseDeps = append(releaseDeps, in.queue.resources...)
	}
	if crd != nil {
		releaseDeps = append(releaseDeps, crd)
	}
	release, err := b.createControllerRelease(releaseDeps, in.controller, in.queue)
	if err != nil {
		return in, err
	}
	// The custom resources wait for both releases (the CRDs and the controller that
	// reconciles them).
	customDeps := append(nodeDeps, release)
	if crd != nil {
		customDeps = append(customDeps, crd)
	}
	return in, b.createCustomResources(customDeps)
}

// childName is the logical (Pulumi) name of a child: the component's name plus a suffix.
func (b *builder) childName(suffix string) string {
	return b.plan.Name + suffix
}

// physicalName is the AWS name of a child: `<component><suffix>-<7 hex>`, shaped like Pulumi's
// auto-names but derived from the account, region, project, stack and component name rather
// than random bytes. Knowing every name (and so every ARN) at construct time means policies
// never wait for the role or queue they mention, previews show complete policies, and two
// components in one account never collide.
func (b *builder) physicalName(suffix string) string {
	seed := strings.Join([]string{b.aws.Account, b.aws.Region, b.ctx.Project(), b.ctx.Stack(), b.plan.Name, suffix}, "/")
	sum := sha256.Sum256([]byte(seed))
	return b.plan.Name + suffix + "-" + hex.EncodeToString(sum[:])[:7]
}

// describe is the description of an AWS child: what it is and which component owns it. Plain
// strings (the cluster name is an Output) keep registration cheap.
func (b *builder) describe(what string) pulumi.String {
	return pulumi.String(description(b.ctx, b.plan, what))
}

// description is what describe writes; an adopted role carries it from the adopting `up` on,
// which is how a later preview knows the install is this component's (plan.ResumeAdoption).
func description(ctx *pulumi.Context, p *plan.Plan, what string) string {
	return plan.Description(what, ctx.Project()+"/"+ctx.Stack(), p.Name)
}

// opts are the options of every child: parented to the component, gated on valid inputs.
func (b *builder) opts(extra ...pulumi.ResourceOption) []pulumi.ResourceOption {
	return append([]pulumi.ResourceOption{pulumi.Parent(b.parent), pulumi.DependsOnInputs(b.gate)}, extra...)
}

// resolveAWSScope reads partition, region and account through the component's aws provider,
// in parallel: they are the only round trips every child waits for.
func (b *builder) resolveAWSScope() (catalog.AwsScope, error) {
	var partition struct {
		Partition string `pulumi:"partition"`
		DNSSuffix string `pulumi:"dnsSuffix"`
	}
	// getRegion answers `region` from pulumi-aws v7 (which deprecates `name`) and `name`
	// before: the invoke goes to whichever aws provider the program passes, v6 or v7.
	var region struct {
		Region string `pulumi:"region"`
		Name   string `pulumi:"name" fallbackFor:"region"`
	}
	var caller struct {
		AccountID string `pulumi:"accountId"`
	}
	invokes := []struct {
		token, what string
		result      any
	}{
		{InvokePartition, "partition", &partition},
		{InvokeRegion, "region", &region},
		{InvokeCallerIdentity, "account", &caller},
	}
	errs := make([]error, len(invokes))
	var wg sync.WaitGroup
	for i, inv := range invokes {
		wg.Go(func() {
			if err := b.invoke(inv.token, struct{}{}, inv.result); err != nil {
				errs[i] = fmt.Errorf("reading the AWS %s: %w", inv.what, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return catalog.AwsScope{}, err
	}
	regionName := region.Region
	if regionName == "" {
		regionName = region.Name
	}
	if regionName == "" || partition.Partition == "" || caller.AccountID == "" {
		// Every regional ARN and physical name is built from these: never build them empty.
		return catalog.AwsScope{}, fmt.Errorf("reading the AWS scope: the aws provider answered partition %q, region %q (getRegion region/name), account %q",
			partition.Partition, regionName, caller.AccountID)
	}
	return catalog.AwsScope{Partition: partition.Partition, DNSSuffix: partition.DNSSuffix, Region: regionName, Account: caller.AccountID}, nil
}

// Outputs are the Karpenter component's outputs, under the names of its schema.
type Outputs struct {
	ControllerRoleArn, ControllerRoleName                                     pulumi.StringOutput
	ControllerPolicyArns                                                      pulumi.StringArrayOutput
	NodeRoleArn, NodeRoleName, InstanceProfileName                            pulumi.StringOutput
	NodeRoleMapping                                                           RoleMappingOutput
	InterruptionQueueName, InterruptionQueueArn, InterruptionQueueUrl         pulumi.StringOutput
	Namespace, ServiceAccountName, ReleaseName, CrdReleaseName, Version, Mode pulumi.StringOutput
	NodePoolNames, NodeClassNames                                             pulumi.StringArrayOutput
}

func (b *builder) outputs(in installed) Outputs {
	var c Outputs
	none := pulumi.String("").ToStringOutput()
	c.ControllerRoleArn, c.ControllerRoleName = none, none
	c.ControllerPolicyArns = pulumi.StringArray{}.ToStringArrayOutput()
	if !b.plan.Release.IsAutoMode() {
		c.ControllerRoleArn = in.controller.roleArn
		c.ControllerRoleName = in.controller.roleName
		c.ControllerPolicyArns = in.controller.policyArns
	}
	c.NodeRoleArn = b.node.roleArn
	c.NodeRoleName = b.node.roleName
	c.NodeRoleMapping = b.nodeRoleMapping()
	c.InstanceProfileName = b.node.instanceProfileName
	c.InterruptionQueueName, c.InterruptionQueueArn, c.InterruptionQueueUrl = none, none, none
	if in.queue != nil {
		c.InterruptionQueueName, c.InterruptionQueueArn, c.InterruptionQueueUrl = in.queue.name, in.queue.arn, in.queue.url
	}
	c.Namespace = pulumi.String(b.plan.Namespace).ToStringOutput()
	c.ServiceAccountName = pulumi.String(b.plan.ServiceAccount).ToStringOutput()
	c.ReleaseName = pulumi.String(controllerChart).ToStringOutput()
	c.CrdReleaseName = none
	if b.plan.CrdRelease {
		c.CrdReleaseName = pulumi.String(crdChart).ToStringOutput()
	}
	c.Version, c.Mode = VersionOutput(b.plan), pulumi.String(b.plan.Mode()).ToStringOutput()
	if b.plan.Release.IsAutoMode() {
		c.ReleaseName = none
	}
	var pools, classes pulumi.StringArray
	for _, p := range b.plan.Pools {
		pools = append(pools, pulumi.String(p.Name))
	}
	for _, cl := range b.plan.Classes {
		classes = append(classes, pulumi.String(cl.Name))
	}
	c.NodePoolNames = pools.ToStringArrayOutput()
	c.NodeClassNames = classes.ToStringArrayOutput()
	return c
}

// VersionOutput is the planned Karpenter version as an output: empty in Auto Mode.
func VersionOutput(p *plan.Plan) pulumi.StringOutput {
	if p.Release.IsAutoMode() {
		return pulumi.String("").ToStringOutput()
	}
	return pulumi.String(p.Release.Version.String()).ToStringOutput()
}
