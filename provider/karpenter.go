package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// KarpenterArgs are the component's inputs. Fields a decision is made on at construct time
// (versions, names, enums, the provisioning lists) are plain; fields users typically wire from
// other resources (cluster name, ARNs, endpoint, tags) are Inputs so they may be unknown
// during preview.
type KarpenterArgs struct {
	// Cluster.
	Mode                      *Mode                 `pulumi:"mode,optional"`
	ClusterName               pulumi.StringInput    `pulumi:"clusterName"`
	ClusterEndpoint           pulumi.StringPtrInput `pulumi:"clusterEndpoint,optional"`
	OidcProviderArn           pulumi.StringPtrInput `pulumi:"oidcProviderArn,optional"`
	ClusterAuthenticationMode *AuthenticationMode   `pulumi:"clusterAuthenticationMode,optional"`
	Version                   *string               `pulumi:"version,optional"`
	AllowUnverifiedVersion    *bool                 `pulumi:"allowUnverifiedVersion,optional"`
	KubernetesVersion         *string               `pulumi:"kubernetesVersion,optional"`
	Tags                      pulumi.StringMapInput `pulumi:"tags,optional"`

	// Controller.
	Namespace                  *string                       `pulumi:"namespace,optional"`
	ServiceAccountName         *string                       `pulumi:"serviceAccountName,optional"`
	ControllerIdentity         *ControllerIdentity           `pulumi:"controllerIdentity,optional"`
	CreatePodIdentityAgent     *bool                         `pulumi:"createPodIdentityAgent,optional"`
	ControllerRoleArn          pulumi.StringPtrInput         `pulumi:"controllerRoleArn,optional"`
	ControllerPolicyStatements []PolicyStatement             `pulumi:"controllerPolicyStatements,optional"`
	ControllerPolicyArns       map[string]pulumi.StringInput `pulumi:"controllerPolicyArns,optional"`

	// Nodes.
	NodeRoleArn                  pulumi.StringPtrInput         `pulumi:"nodeRoleArn,optional"`
	NodeRoleAdditionalPolicyArns map[string]pulumi.StringInput `pulumi:"nodeRoleAdditionalPolicyArns,optional"`
	CreateInstanceProfile        *bool                         `pulumi:"createInstanceProfile,optional"`
	NodeAccess                   *NodeAccess                   `pulumi:"nodeAccess,optional"`
	CreateSpotServiceLinkedRole  *bool                         `pulumi:"createSpotServiceLinkedRole,optional"`
	Discovery                    *Discovery                    `pulumi:"discovery,optional"`

	// Interruption handling.
	InterruptionHandling *bool `pulumi:"interruptionHandling,optional"`

	// Chart.
	ChartRepository           *string               `pulumi:"chartRepository,optional"`
	RepositoryUsername        pulumi.StringPtrInput `pulumi:"repositoryUsername,optional"`
	RepositoryPassword        pulumi.StringPtrInput `pulumi:"repositoryPassword,optional" provider:"secret"`
	ControllerImageRepository *string               `pulumi:"controllerImageRepository,optional"`
	InstallCrds               *bool                 `pulumi:"installCrds,optional"`
	ReleaseTimeout            *int                  `pulumi:"releaseTimeout,optional"`
	RetainCrdsOnDelete        *bool                 `pulumi:"retainCrdsOnDelete,optional"`
	Values                    pulumi.MapInput       `pulumi:"values,optional"`

	// Provisioning.
	DefaultNodePool *bool           `pulumi:"defaultNodePool,optional"`
	NodePools       []NodePoolSpec  `pulumi:"nodePools,optional"`
	NodeClasses     []NodeClassSpec `pulumi:"nodeClasses,optional"`
}

// Annotate documents every input; the descriptions become the SDK docs in every language.
func (a *KarpenterArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Mode, "Who runs Karpenter. `selfManaged` (default): the component installs it. `autoMode`: EKS Auto Mode runs it, and the component creates only the node role (AmazonEKSWorkerNodeMinimalPolicy and AmazonEC2ContainerRegistryPullOnly), its EC2 access entry with the AmazonEKSAutoNodePolicy association, and Auto Mode NodeClasses and NodePools; inputs that configure the Karpenter install (version, controller, interruption, chart and CRD settings) then fail naming the field.")
	an.Describe(&a.ClusterName, "Name of the EKS cluster Karpenter manages nodes for (1-100 characters: letters, digits, '-' and '_', starting with a letter or digit). Scopes the IAM policies, names the chart's `settings.clusterName` and the default subnet/security-group discovery tag.")
	an.Describe(&a.ClusterEndpoint, "The cluster's API server endpoint (https URL). Passed as `settings.clusterEndpoint`; when omitted Karpenter discovers it with `eks:DescribeCluster`.")
	an.Describe(&a.OidcProviderArn, "ARN of the cluster's IAM OIDC provider (`arn:aws:iam::<account>:oidc-provider/<issuer>`). Required unless `controllerRoleArn` is given: the controller role trusts it for IRSA.")
	an.Describe(&a.ClusterAuthenticationMode, "The cluster's authentication mode. With `CONFIG_MAP` the cluster cannot use access entries, so none is created for the node role.")
	an.Describe(&a.Version, fmt.Sprintf("Karpenter chart version to install. Drives the IAM policy shape, chart values and custom resource API versions. Default: %s. Supported: %s.", defaultVersion, supportedRangeText()))
	an.Describe(&a.AllowUnverifiedVersion, fmt.Sprintf("Install a `version` newer than the newest release this component has verified (%s), with that release's IAM policy, chart values and custom resource rules, instead of failing. Newer patches of a verified minor never need it; a new major version is refused either way. A preview warns while it is in effect. Default: false.", defaultVersion))
	an.Describe(&a.KubernetesVersion, "The cluster's Kubernetes version (e.g. `1.33`). When set, the component checks Karpenter's compatibility matrix and fails early if `version` does not support it (Kubernetes 1.33 needs Karpenter 1.5 or later).")
	an.Describe(&a.Tags, "Tags applied to every AWS resource the component creates, and put on every node class it creates (under the class's own `tags`, which win), so the instances, volumes and launch templates Karpenter launches for them carry them too. Changing them changes the node classes, which Karpenter treats as drift: it replaces the nodes. Keys Karpenter reserves (`kubernetes.io/cluster/*`, `karpenter.sh/nodepool`, `karpenter.sh/nodeclaim`, `karpenter.k8s.aws/ec2nodeclass`, `eks:eks-cluster-name`) fail.")
	an.Describe(&a.Namespace, "Namespace of the Karpenter releases. Default: `kube-system` (`karpenter` for versions before 0.32, as their guides use).")
	an.Describe(&a.ServiceAccountName, "Name of the controller's Kubernetes service account. Default: `karpenter`.")
	an.Describe(&a.ControllerIdentity, "How the controller gets AWS credentials: `irsa` (IAM roles for service accounts; the role trusts the cluster's OIDC provider and the service account is annotated), `podIdentity` (EKS Pod Identity; the role trusts pods.eks.amazonaws.com and the component creates the pod identity association), or `both` (trust both, to migrate from IRSA to Pod Identity without downtime). Default: `irsa`.")
	an.Describe(&a.CreatePodIdentityAgent, "With `podIdentity`, install the `eks-pod-identity-agent` EKS add-on. When false, the component checks that the add-on is installed. Default: false.")
	an.Describe(&a.ControllerRoleArn, "ARN of an existing IAM role for the controller. When set, the component creates no controller IAM (no role, no policies) and annotates the service account with this role.")
	an.Describe(&a.ControllerPolicyStatements, "Extra IAM statements for the controller, added as one more managed policy attached to the controller role.")
	an.Describe(&a.ControllerPolicyArns, "Extra managed policies to attach to the controller role, keyed by a stable name (the key names the attachment, so reordering never detaches a policy).")
	an.Describe(&a.NodeRoleArn, "ARN of an existing IAM role for the nodes Karpenter launches. When set, the component creates no node role and no instance profile, and (self-managed) no access entry; node classes use this role. With mode `autoMode` the component still creates the role's EC2 access entry unless `nodeAccess` is `none` (set it when the role is the cluster's `computeConfig.nodeRoleArn`, whose entry EKS creates).")
	an.Describe(&a.NodeRoleAdditionalPolicyArns, "Extra managed policies to attach to the node role, keyed by a stable name (e.g. `{\"ebs\": \"arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy\"}`).")
	an.Describe(&a.NodeAccess, "How nodes are allowed to join the cluster: `accessEntry` (an EKS access entry of type EC2_LINUX, or EC2_WINDOWS when a node class uses a Windows AMI), `awsAuth` (a mapping in kube-system/aws-auth), or `none`. Default: `awsAuth` for `CONFIG_MAP` clusters, `none` with `nodeRoleArn`, else `accessEntry`. With mode `autoMode`: `accessEntry` (default: an EC2 entry with the AmazonEKSAutoNodePolicy association for the node role and for each node class with its own role) or `none` (no entries at all: the roles already have them).")
	an.Describe(&a.CreateSpotServiceLinkedRole, "Create the account's `AWSServiceRoleForEC2Spot` service-linked role, which EC2 needs before the first Spot launch. Fails if the account already has it (import it or leave this off). Kept on destroy: other workloads may use it. Default: false.")
	an.Describe(&a.Discovery, "Subnets and security groups to tag `karpenter.sh/discovery: <clusterName>`, so node classes that select by the discovery tag (the default class does) find them.")
	an.Describe(&a.CreateInstanceProfile, "Create an instance profile for the node role (for node classes that set `instanceProfile`, or tools that need one). Default: true; false with mode `autoMode` (EKS creates one from each NodeClass's role).")
	an.Describe(&a.InterruptionHandling, "Create the interruption queue and the EventBridge rules that feed it, and point Karpenter at it. Default: true.")
	an.Describe(&a.RepositoryUsername, "Username for a private HTTP(S) chart repository. Not for an `oci://` registry, whose credentials the kubernetes provider reads only from Helm's registry config: log in with `helm registry login <host>` where `pulumi up` runs (setting this with an `oci://` chartRepository fails naming the login). Not needed for public ECR.")
	an.Describe(&a.RepositoryPassword, "Password or token for a private HTTP(S) chart repository (stored as a secret). Not for an `oci://` registry (see repositoryUsername). Not needed for public ECR.")
	an.Describe(&a.ControllerImageRepository, "Controller image repository for clusters that pull from a mirror, e.g. `123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller` (the chart's digest still pins the image).")
	an.Describe(&a.ChartRepository, "Where the charts come from: an OCI registry (`oci://...`), an HTTP(S) chart repository, or a local directory holding `karpenter/` and `karpenter-crd/`. Default: `oci://public.ecr.aws/karpenter`.")
	an.Describe(&a.ReleaseTimeout, "Seconds `pulumi up` waits for each Helm release's resources to become ready (the controller's Deployment available, its pods scheduled on the cluster's nodes) before failing with the kubernetes provider's message naming the release; a destroy waits as long for them to be gone. Default: 300, the kubernetes provider's.")
	an.Describe(&a.InstallCrds, "Install and upgrade the CRDs with the `karpenter-crd` chart. Set false only when something else manages Karpenter's CRDs. Default: true.")
	an.Describe(&a.RetainCrdsOnDelete, "Leave the `karpenter-crd` release, and so Karpenter's CRDs and every NodePool and NodeClaim, in the cluster when the component is deleted (Pulumi's retainOnDelete; nothing changes in the cluster when it is set). Set it before removing a self-managed install from a cluster that runs EKS Auto Mode, which shares `nodepools.karpenter.sh` and `nodeclaims.karpenter.sh` (README, Migrating to EKS Auto Mode). Default: false.")
	an.Describe(&a.Values, "Extra Helm values for the `karpenter` chart, deep-merged over the values the component sets.")
	an.Describe(&a.DefaultNodePool, "Create a default NodePool and node class when `nodePools` is empty: named `default` (an EC2NodeClass), or `auto-default` with mode `autoMode` (EKS owns the `default` NodeClass). Default: true.")
	an.Describe(&a.NodePools, "NodePools to create. A pool's `nodeClassRef` names an entry of `nodeClasses` (or the default class when `nodeClasses` is empty).")
	an.Describe(&a.NodeClasses, "Node classes to create: EC2NodeClasses, or EKS Auto Mode NodeClasses with mode `autoMode`. When empty and any pool is created, a default class is created: subnets and security groups tagged `karpenter.sh/discovery: <clusterName>`, the node role, and AMI alias `al2023@latest` (self-managed) or Auto Mode's documented defaults.")
}

// Karpenter is the component resource: everything Karpenter needs on one EKS cluster.
type Karpenter struct {
	pulumi.ResourceState

	ControllerRoleArn     pulumi.StringOutput      `pulumi:"controllerRoleArn"`
	ControllerRoleName    pulumi.StringOutput      `pulumi:"controllerRoleName"`
	ControllerPolicyArns  pulumi.StringArrayOutput `pulumi:"controllerPolicyArns"`
	NodeRoleArn           pulumi.StringOutput      `pulumi:"nodeRoleArn"`
	NodeRoleName          pulumi.StringOutput      `pulumi:"nodeRoleName"`
	InstanceProfileName   pulumi.StringOutput      `pulumi:"instanceProfileName"`
	InterruptionQueueName pulumi.StringOutput      `pulumi:"interruptionQueueName"`
	InterruptionQueueArn  pulumi.StringOutput      `pulumi:"interruptionQueueArn"`
	InterruptionQueueUrl  pulumi.StringOutput      `pulumi:"interruptionQueueUrl"`
	Namespace             pulumi.StringOutput      `pulumi:"namespace"`
	ServiceAccountName    pulumi.StringOutput      `pulumi:"serviceAccountName"`
	ReleaseName           pulumi.StringOutput      `pulumi:"releaseName"`
	CrdReleaseName        pulumi.StringOutput      `pulumi:"crdReleaseName"`
	Version               pulumi.StringOutput      `pulumi:"version"`
	NodePoolNames         pulumi.StringArrayOutput `pulumi:"nodePoolNames"`
	NodeClassNames        pulumi.StringArrayOutput `pulumi:"nodeClassNames"`
	Mode                  pulumi.StringOutput      `pulumi:"mode"`
}

// Annotate documents the component and its outputs.
func (k *Karpenter) Annotate(an infer.Annotator) {
	an.Describe(&k, "Installs Karpenter on an EKS cluster: controller and node IAM, the interruption queue and its EventBridge rules, the `karpenter-crd` and `karpenter` Helm releases, and the NodePools and EC2NodeClasses. Children are created in dependency order (IAM and queue, CRDs, controller, custom resources) so that a destroy removes the custom resources first, while Karpenter still runs and can terminate its nodes.")
	an.Describe(&k.ControllerRoleArn, "ARN of the controller's IAM role (created, or `controllerRoleArn`).")
	an.Describe(&k.ControllerRoleName, "Name of the controller's IAM role.")
	an.Describe(&k.ControllerPolicyArns, "ARNs of the managed policies the component created for the controller (empty with `controllerRoleArn`).")
	an.Describe(&k.NodeRoleArn, "ARN of the node IAM role (created, or `nodeRoleArn`).")
	an.Describe(&k.NodeRoleName, "Name of the node IAM role; the default EC2NodeClass's `role`.")
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

// NewKarpenter builds the component. Everything a user can get wrong in plain inputs is
// checked before the first child is registered, so bad input creates nothing.
func NewKarpenter(ctx *pulumi.Context, name string, args KarpenterArgs, opts ...pulumi.ResourceOption) (*Karpenter, error) {
	plan, err := newInstallPlan(name, args)
	if err != nil {
		return nil, err
	}

	comp := &Karpenter{}
	if err := registerComponent(ctx, componentToken, name, comp, plan.release, plan.warnings, opts...); err != nil {
		return nil, err
	}

	// Registration runs on a fresh goroutine: the SDK records the Go stack of every
	// registration, and the construct call stack (gRPC, middleware) is deep enough to make that
	// the largest cost of a Construct.
	var b *builder
	done := make(chan error, 1)
	go func() {
		var err error
		if b, err = newBuilder(ctx, comp, plan, args); err == nil {
			err = b.build()
		}
		done <- err
	}()
	if err := <-done; err != nil {
		return nil, err
	}
	b.setOutputs(comp)
	return comp, nil
}

// registerComponent registers a component of this package (under render, noting the
// registration order of its children) and warns when its release is unverified, and what else
// the inputs call for (warnings).
func registerComponent(ctx *pulumi.Context, token, name string, comp pulumi.ComponentResource, rel release, warnings []string, opts ...pulumi.ResourceOption) error {
	if rec := registrationRecorderFrom(ctx.Context()); rec != nil {
		opts = append(opts, pulumi.Transformations([]pulumi.ResourceTransformation{rec.record}))
	}
	if err := ctx.RegisterComponentResource(token, name, comp, opts...); err != nil {
		return err
	}
	if rel.unverified {
		warnings = append([]string{rel.unverifiedWarning()}, warnings...)
	}
	for _, w := range warnings {
		_ = ctx.Log.Warn(w, &pulumi.LogArgs{Resource: comp})
	}
	return nil
}

// builder registers the component's children. Each create* method returns what later
// children need, so the dependency order reads top to bottom in build.
type builder struct {
	ctx *pulumi.Context
	// parent is the component the children belong to: a Karpenter, NodePool or NodeClass.
	parent pulumi.Resource
	plan   *installPlan
	args   KarpenterArgs
	aws    awsScope
	// gate fails every child's registration when an Input value (known only once resolved)
	// is invalid, so bad input creates nothing even when it was unknown during preview.
	gate pulumi.ResourceArrayOutput

	node       nodeIAM
	nodeDeps   []pulumi.Resource // what node classes need while nodes exist
	controller controllerIAM
	queue      *interruptionQueue
	crdRelease pulumi.Resource
	release    pulumi.Resource
}

func newBuilder(ctx *pulumi.Context, comp *Karpenter, plan *installPlan, args KarpenterArgs) (*builder, error) {
	b := &builder{ctx: ctx, parent: comp, plan: plan, args: args}
	aws, err := b.resolveAWSScope()
	if err != nil {
		return nil, err
	}
	b.aws = aws
	b.gate = b.validateInputs()
	return b, nil
}

func (b *builder) build() error {
	var err error
	if b.node, err = b.createNodeIAM(); err != nil {
		return err
	}
	createAccess := b.createNodeAccess
	if b.plan.release.autoMode != nil && b.plan.nodeAccess == "accessEntry" {
		createAccess = b.createAutoModeNodeAccess
	}
	access, err := createAccess(b.node.roleArn)
	if err != nil {
		return err
	}
	discovery, err := b.createDiscoveryTags()
	if err != nil {
		return err
	}
	// Node classes need the nodes' IAM, their access to the cluster and the discovery tags
	// for as long as nodes exist.
	b.nodeDeps = append(append(append([]pulumi.Resource{}, b.node.resources...), access...), discovery...)
	if b.plan.release.autoMode != nil {
		// EKS runs Karpenter: no queue, controller IAM or releases; the classes and pools go
		// straight onto the CRDs EKS installed.
		spotRole, err := b.createSpotServiceLinkedRole()
		if err != nil {
			return err
		}
		b.nodeDeps = append(b.nodeDeps, spotRole...)
		return b.createCustomResources()
	}

	queueArn := ""
	if b.plan.interruption {
		queue, err := b.createInterruptionQueue()
		if err != nil {
			return err
		}
		b.queue, queueArn = &queue, queue.knownArn
	}
	if b.controller, err = b.createControllerIAM(b.node, queueArn); err != nil {
		return err
	}
	podIdentity, err := b.createPodIdentity(b.controller.roleArn)
	if err != nil {
		return err
	}
	spotRole, err := b.createSpotServiceLinkedRole()
	if err != nil {
		return err
	}
	crd, err := b.createCrdRelease()
	if err != nil {
		return err
	}

	// The controller starts only once its permissions, credentials, queue and CRDs exist; on
	// destroy it is removed before any of them, and the custom resources go before it.
	releaseDeps := append(append(append([]pulumi.Resource{}, b.controller.resources...), podIdentity...), spotRole...)
	if b.queue != nil {
		releaseDeps = append(releaseDeps, b.queue.resources...)
	}
	if crd != nil {
		b.crdRelease = crd
		releaseDeps = append(releaseDeps, crd)
	}
	release, err := b.createControllerRelease(releaseDeps, b.controller, b.queue)
	if err != nil {
		return err
	}
	b.release = release
	return b.createCustomResources()
}

// childName is the logical (Pulumi) name of a child: the component's name plus a suffix.
func (b *builder) childName(suffix string) string {
	return b.plan.name + suffix
}

// physicalName is the AWS name of a child: `<component><suffix>-<7 hex>`, shaped like Pulumi's
// auto-names but derived from the account, region, project, stack and component name rather
// than random bytes. Knowing every name (and so every ARN) at construct time means policies
// never wait for the role or queue they mention, previews show complete policies, and two
// components in one account never collide.
func (b *builder) physicalName(suffix string) string {
	seed := strings.Join([]string{b.aws.Account, b.aws.Region, b.ctx.Project(), b.ctx.Stack(), b.plan.name, suffix}, "/")
	sum := sha256.Sum256([]byte(seed))
	return b.plan.name + suffix + "-" + hex.EncodeToString(sum[:])[:7]
}

// describe is the description of an AWS child: what it is and which component owns it. Plain
// strings (the cluster name is an Output) keep registration cheap.
func (b *builder) describe(what string) pulumi.String {
	return pulumi.String(fmt.Sprintf("Karpenter %s (Pulumi %s/%s, component %s)", what, b.ctx.Project(), b.ctx.Stack(), b.plan.name))
}

// opts are the options of every child: parented to the component, gated on valid inputs.
func (b *builder) opts(extra ...pulumi.ResourceOption) []pulumi.ResourceOption {
	return append([]pulumi.ResourceOption{pulumi.Parent(b.parent), pulumi.DependsOnInputs(b.gate)}, extra...)
}

// resolveAWSScope reads partition, region and account through the component's aws provider,
// in parallel: they are the only round trips every child waits for.
func (b *builder) resolveAWSScope() (awsScope, error) {
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
		{invokePartition, "partition", &partition},
		{invokeRegion, "region", &region},
		{invokeCallerIdentity, "account", &caller},
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
		return awsScope{}, err
	}
	regionName := region.Region
	if regionName == "" {
		regionName = region.Name
	}
	if regionName == "" || partition.Partition == "" || caller.AccountID == "" {
		// Every regional ARN and physical name is built from these: never build them empty.
		return awsScope{}, fmt.Errorf("reading the AWS scope: the aws provider answered partition %q, region %q (getRegion region/name), account %q",
			partition.Partition, regionName, caller.AccountID)
	}
	return awsScope{Partition: partition.Partition, DNSSuffix: partition.DNSSuffix, Region: regionName, Account: caller.AccountID}, nil
}

func (b *builder) setOutputs(c *Karpenter) {
	none := pulumi.String("").ToStringOutput()
	c.ControllerRoleArn, c.ControllerRoleName = none, none
	c.ControllerPolicyArns = pulumi.StringArray{}.ToStringArrayOutput()
	if b.plan.release.autoMode == nil {
		c.ControllerRoleArn = b.controller.roleArn
		c.ControllerRoleName = b.controller.roleName
		c.ControllerPolicyArns = b.controller.policyArns
	}
	c.NodeRoleArn = b.node.roleArn
	c.NodeRoleName = b.node.roleName
	c.InstanceProfileName = b.node.instanceProfileName
	c.InterruptionQueueName, c.InterruptionQueueArn, c.InterruptionQueueUrl = none, none, none
	if b.queue != nil {
		c.InterruptionQueueName, c.InterruptionQueueArn, c.InterruptionQueueUrl = b.queue.name, b.queue.arn, b.queue.url
	}
	c.Namespace = pulumi.String(b.plan.namespace).ToStringOutput()
	c.ServiceAccountName = pulumi.String(b.plan.serviceAccount).ToStringOutput()
	c.ReleaseName = pulumi.String(controllerChart).ToStringOutput()
	c.CrdReleaseName = none
	if b.plan.installCrds {
		c.CrdReleaseName = pulumi.String(crdChart).ToStringOutput()
	}
	c.Version, c.Mode = b.plan.release.versionOutput(), pulumi.String(ModeSelfManaged).ToStringOutput()
	if b.plan.release.autoMode != nil {
		c.Mode, c.ReleaseName = pulumi.String(ModeAutoMode).ToStringOutput(), none
	}
	var pools, classes pulumi.StringArray
	for _, p := range b.plan.pools {
		pools = append(pools, pulumi.String(p.Name))
	}
	for _, cl := range b.plan.classes {
		classes = append(classes, pulumi.String(cl.Name))
	}
	c.NodePoolNames = pools.ToStringArrayOutput()
	c.NodeClassNames = classes.ToStringArrayOutput()
}

// ControllerIdentity is how the controller authenticates to AWS.
type ControllerIdentity string

func (ControllerIdentity) Values() []infer.EnumValue[ControllerIdentity] {
	return []infer.EnumValue[ControllerIdentity]{
		{Name: "Irsa", Value: "irsa", Description: "IAM roles for service accounts (the cluster's OIDC provider)."},
		{Name: "PodIdentity", Value: "podIdentity", Description: "EKS Pod Identity."},
		{Name: "Both", Value: "both", Description: "Trust both, to migrate from IRSA to Pod Identity."},
	}
}

// NodeAccess is how the nodes' role is allowed into the cluster.
type NodeAccess string

func (NodeAccess) Values() []infer.EnumValue[NodeAccess] {
	return []infer.EnumValue[NodeAccess]{
		{Name: "AccessEntry", Value: "accessEntry", Description: "An EKS access entry (clusters in API or API_AND_CONFIG_MAP mode)."},
		{Name: "AwsAuth", Value: "awsAuth", Description: "A mapRoles entry in kube-system/aws-auth (clusters in CONFIG_MAP mode)."},
		{Name: "None", Value: "none", Description: "Nothing: the role already has access."},
	}
}

// Discovery lists resources to tag for Karpenter's discovery.
type Discovery struct {
	SubnetIds        []pulumi.StringInput `pulumi:"subnetIds,optional"`
	SecurityGroupIds []pulumi.StringInput `pulumi:"securityGroupIds,optional"`
}

func (d *Discovery) Annotate(a infer.Annotator) {
	a.Describe(&d, "Resources the component tags `karpenter.sh/discovery: <clusterName>`.")

	a.Describe(&d.SubnetIds, "Subnets for the nodes (usually the cluster's private subnets). Tags are named by position: keep the order stable.")
	a.Describe(&d.SecurityGroupIds, "Security groups for the nodes (usually the cluster's node security group). Tags are named by position: keep the order stable.")
}

// AuthenticationMode is an EKS cluster's authentication mode.
type AuthenticationMode string

const (
	AuthenticationModeApi             AuthenticationMode = "API"
	AuthenticationModeApiAndConfigMap AuthenticationMode = "API_AND_CONFIG_MAP"
	AuthenticationModeConfigMap       AuthenticationMode = "CONFIG_MAP"
)

func (AuthenticationMode) Values() []infer.EnumValue[AuthenticationMode] {
	return []infer.EnumValue[AuthenticationMode]{
		{Name: "Api", Value: AuthenticationModeApi, Description: "Access entries only."},
		{Name: "ApiAndConfigMap", Value: AuthenticationModeApiAndConfigMap, Description: "Access entries and the aws-auth ConfigMap."},
		{Name: "ConfigMap", Value: AuthenticationModeConfigMap, Description: "The aws-auth ConfigMap only (no access entries)."},
	}
}

// enumType is a string enum of the schema.
type enumType[T any] interface {
	~string
	Values() []infer.EnumValue[T]
}

// enumValues lists an enum's allowed values, for validation messages.
func enumValues[T enumType[T]]() []string {
	var zero T
	var out []string
	for _, v := range zero.Values() {
		out = append(out, string(v.Value))
	}
	return out
}
