package inputs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi-go-provider/infer"
)

// Adoption names a running Karpenter install the component takes over (adopt): each child the
// component would create is imported from what exists instead, under its existing name, and
// updated in place where the inputs differ. Unset names are those Karpenter's getting-started
// guide gives (catalog.GettingStartedNames).
type Adoption struct {
	NodeRoleName             *string           `pulumi:"nodeRoleName,optional"`
	InstanceProfileName      *string           `pulumi:"instanceProfileName,optional"`
	ControllerRoleName       *string           `pulumi:"controllerRoleName,optional"`
	ControllerPolicyNames    map[string]string `pulumi:"controllerPolicyNames,optional"`
	InterruptionQueueName    *string           `pulumi:"interruptionQueueName,optional"`
	InterruptionRuleNames    map[string]string `pulumi:"interruptionRuleNames,optional"`
	PodIdentityAssociationId *string           `pulumi:"podIdentityAssociationId,optional"`
	NodePoolNames            []string          `pulumi:"nodePoolNames,optional"`
	NodeClassNames           []string          `pulumi:"nodeClassNames,optional"`
	AllowNodeReplacement     *bool             `pulumi:"allowNodeReplacement,optional"`
	NodeRolePolicies         []string          `pulumi:"nodeRolePolicies,optional"`
}

func (a *Adoption) Annotate(an infer.Annotator) {
	an.Describe(&a, "A running Karpenter install for the component to take over without replacing a node: each child the install has is imported from what exists (Pulumi's `import`), under the name it has, and updated in place where the inputs ask for something else; a change that would replace an imported child fails instead. At each preview the component reads which of the named IAM roles, policies, instance profile, queue, access entry and Pod Identity add-on exist: those are imported, the others created under the component's own names (a policy a later Karpenter version splits out, access entries after aws-auth), and a name given here that does not exist is refused. The Helm releases are imported by their names (`karpenter`, in `namespace`), the CRDs are handed to the `karpenter-crd` release, and the NodePools and node classes named in `nodePoolNames` and `nodeClassNames` by their names; other pools and classes are created. After the first `up`, `adopt` is inert: what it imported is then the component's, so keeping it changes nothing, and removing it changes nothing either when the install has the guide's names (the adopting `up` describes the install's roles as this component's, and a later preview that finds them so resumes the adoption); an install adopted under other names keeps `adopt` with them. Unset names are those Karpenter's getting-started guide gives the cluster (its CloudFormation template and eksctl config). docs/migrating.md has the steps for each way of installing Karpenter.")
	an.Describe(&a.NodeRoleName, "Name of the node role to import (with its four AWS managed policy attachments and its access entry). "+DefaultWith("KarpenterNodeRole-<clusterName>", "the template's"))
	an.Describe(&a.InstanceProfileName, "Name of the node instance profile to import, when the component has one (`createInstanceProfile`). "+DefaultWith("KarpenterNodeInstanceProfile-<clusterName>", "the template's before 0.32; from 0.32 the template creates none: an install made before 0.32 keeps this one when it exists, so its nodes' profile is not replaced, and otherwise the component creates its own"))
	an.Describe(&a.ControllerRoleName, "Name of the controller role to import. "+DefaultWith("<clusterName>-karpenter", "the role the guide's eksctl config creates for the service account"))
	an.Describe(&a.ControllerPolicyNames, "Names of the controller's managed policies to import (with their attachments to the controller role), keyed like the component's policies: `policy` where there is one (before 1.9); `node-lifecycle`, `iam-integration`, `eks-integration`, `interruption`, `resource-discovery` and `zonal-shift` where they are split (from 1.9). A key not given takes the template's name: `KarpenterControllerPolicy-<clusterName>`, `KarpenterControllerNodeLifecyclePolicy-<clusterName>`, `KarpenterControllerIAMIntegrationPolicy-<clusterName>`, and so on.")
	an.Describe(&a.InterruptionQueueName, "Name of the interruption queue to import (with its policy). "+DefaultWith("<clusterName>", "the template's"))
	an.Describe(&a.InterruptionRuleNames, "Names of the EventBridge rules that feed the interruption queue, keyed `scheduledChange`, `spotInterruption`, `rebalance`, `stateChange` and (from 1.10) `capacityReservation`. Required with `interruptionHandling`: CloudFormation names them `<stack>-<LogicalId>-<random>` (e.g. `Karpenter-my-cluster-ScheduledChangeRule-1A2B3C4D5E6F`); `aws events list-rule-names-by-target --target-arn <queue ARN>` lists them. An empty name says the install has no such rule (e.g. `capacityReservation`, which came with 1.10): the component creates it.")
	an.Describe(&a.PodIdentityAssociationId, "Id of the controller's pod identity association to import (`a-...`). Required when `controllerIdentity` is `podIdentity` or `both`: `aws eks list-pod-identity-associations --cluster-name <clusterName> --namespace <namespace> --service-account <serviceAccountName>` prints it. An empty id says the install has none (it ran with IRSA): the component creates it.")
	an.Describe(&a.NodePoolNames, "Names of the install's NodePools (Provisioners before 0.32) to import when `nodePools` declares them; a pool of `nodePools` not named here is created. A name here that `nodePools` does not declare stays in the cluster, not managed (a warning says so). "+DefaultWith("[\"default\"]", "the getting-started guide's"))
	an.Describe(&a.AllowNodeReplacement, "Let the adopting `up` change fields of the install's NodePools and node classes that Karpenter's drift covers (a class's tags, userData, role, block devices, kubelet, AMI selection; a pool's template labels, taints, nodeClassRef, expireAfter), which replaces every node of that pool or class, paced by the pool's disruption budgets. Unset, the preview refuses such a change, naming the object and the fields: declare them as they run, or set this to accept the rollout. "+Default("false"))
	an.Describe(&a.NodeRolePolicies, "Names of the AWS managed policies attached to the install's node role (e.g. `AmazonEKSWorkerNodePolicy`): the component imports its attachment of each of its node policies named here and attaches the others. IAM cannot list them to the component (pulumi-aws has no function for a role's attached policies). terraform-aws-modules' `karpenter` module v21 attaches `AmazonEKSWorkerNodePolicy`, `AmazonEKS_CNI_Policy` and `AmazonEC2ContainerRegistryPullOnly` (no `AmazonSSMManagedInstanceCore`). Default: the component's own node policies for the version (the template's four).")
	an.Describe(&a.NodeClassNames, "Names of the install's EC2NodeClasses (AWSNodeTemplates before 0.32) to import when `nodeClasses` declares them; a class not named here is created. "+DefaultWith("[\"default\"]", "the getting-started guide's"))
}

// The AWS names adopt gives: their limits and characters (IAM User Guide, "IAM object quotas",
// and the CreateRole, CreatePolicy and CreateInstanceProfile parameters; SQS CreateQueue;
// EventBridge PutRule).
type awsName struct {
	what    string
	limit   int
	pattern *regexp.Regexp
	allowed string
}

var (
	iamRoleName      = awsName{"an IAM role name", 64, regexp.MustCompile(`^[\w+=,.@-]+$`), "letters, digits and + = , . @ _ -"}
	iamPolicyName    = awsName{"an IAM policy name", 128, iamRoleName.pattern, iamRoleName.allowed}
	iamInstanceProf  = awsName{"an IAM instance profile name", 128, iamRoleName.pattern, iamRoleName.allowed}
	sqsQueueName     = awsName{"an SQS queue name", 80, regexp.MustCompile(`^[\w-]+$`), "letters, digits, - and _"}
	eventBusRuleName = awsName{"an EventBridge rule name", 64, regexp.MustCompile(`^[.\-_A-Za-z0-9]+$`), "letters, digits, . - and _"}
	// EKS CreatePodIdentityAssociation's associationId: `a-` and 17 characters.
	podIdentityAssociationID = regexp.MustCompile(`^a-[0-9a-z]{17}$`)
)

func (n awsName) check(path *field.Path, name string) error {
	switch {
	case name == "":
		return field.Invalidf(path, "is empty; give %s", n.what)
	case len(name) > n.limit:
		return field.Invalidf(path, "%q is %d characters, over AWS's limit of %d for %s", name, len(name), n.limit, n.what)
	case !n.pattern.MatchString(name):
		return field.Invalidf(path, "%q is not %s (AWS allows %s)", name, n.what, n.allowed)
	}
	return nil
}

// AdoptionNames are the names an adoption takes, resolved for one cluster: the inputs, else the
// getting-started guide's. Rules and the pod identity association have no default.
type AdoptionNames struct {
	NodeRole, InstanceProfile, ControllerRole, Queue string
	// ControllerPolicies by layout key; every key has a name (the template's by default).
	ControllerPolicies       map[string]string
	Rules                    map[string]string
	PodIdentityAssociationID string
	// NodePools and NodeClasses are the install's pools and classes, imported when declared;
	// AllowNodeReplacement lets the adopting update change what drifts their nodes.
	NodePools, NodeClasses []string
	AllowNodeReplacement   bool
	// NodeRolePolicies are the AWS managed policies attached to the adopted node role, by name
	// (nil: all of the component's).
	NodeRolePolicies []string

	// What plan.ReadAdoption found in the account, read before any child: the node access entry
	// and the Pod Identity agent add-on exist (imported, not created). (The Spot service-linked
	// role is read whether adopting or not: children's createSpotServiceLinkedRole.)
	// A name above that does not exist is "" once read (created, not imported).
	AccessEntry, PodIdentityAgent bool
	// Given are the names the user set, by where they were set: one that does not exist is a
	// finding there, where a default (the guide's) that does not exist is created.
	Given map[string]*field.Path
	// Resumed: adopt is not in the program, and an earlier `up` of this component adopted the
	// install (plan.ResumeAdoption): names the guide does not give (the rules') are the stack's.
	Resumed bool
	// Taken: an earlier `up` adopted the install (its roles are described as this component's,
	// plan.ReadAdoption), so every child of it is in the stack. The children whose provider id is
	// not their import id (the rules' targets, the pod identity association) are then not imported
	// again: after an `up` without adopt the engine would take that import for a new one and
	// replace them (import, then delete what it imported).
	Taken bool
	// Arns are the ARNs of the install's IAM roles and policies, by name, as read: with the path
	// each was created under, which a name does not tell (and PassRole, access entries and
	// import ids need).
	Arns map[string]string
}

// Arn is the ARN of the install's IAM role or policy name: as read, else built by pathless from
// the name alone.
func (n *AdoptionNames) Arn(name string, pathless func(string) string) string {
	if arn, ok := n.Arns[name]; ok {
		return arn
	}
	return pathless(name)
}

// HasNodeRolePolicy says whether the adopted node role has the AWS managed policy named name
// attached.
func (n *AdoptionNames) HasNodeRolePolicy(name string) bool {
	return n.NodeRolePolicies == nil || slices.Contains(n.NodeRolePolicies, name)
}

// Installed says whether the adopted install has the NodePool (pool) or node class named name;
// false when nothing is adopted.
func (n *AdoptionNames) Installed(pool bool, name string) bool {
	switch {
	case n == nil:
		return false
	case pool:
		return slices.Contains(n.NodePools, name)
	}
	return slices.Contains(n.NodeClasses, name)
}

// Names resolves the adopted names for cluster and release r.
func (a Adoption) Names(r catalog.Release, cluster string) AdoptionNames {
	guide := catalog.GettingStartedNames(r, cluster)
	names := AdoptionNames{
		NodeRole:                 Deref(a.NodeRoleName, guide.NodeRole),
		InstanceProfile:          Deref(a.InstanceProfileName, guide.InstanceProfile),
		ControllerRole:           Deref(a.ControllerRoleName, guide.ControllerRole),
		Queue:                    Deref(a.InterruptionQueueName, guide.Queue),
		ControllerPolicies:       map[string]string{},
		Rules:                    map[string]string{},
		PodIdentityAssociationID: Deref(a.PodIdentityAssociationId, ""),
		NodePools:                guideCustomResources(a.NodePoolNames),
		NodeClasses:              guideCustomResources(a.NodeClassNames),
		AllowNodeReplacement:     Deref(a.AllowNodeReplacement, false),
		NodeRolePolicies:         a.NodeRolePolicies,
		Given:                    map[string]*field.Path{},
	}
	path := field.NewPath("adopt")
	for _, g := range []struct {
		value *string
		field string
	}{{a.NodeRoleName, "nodeRoleName"}, {a.InstanceProfileName, "instanceProfileName"}, {a.ControllerRoleName, "controllerRoleName"}, {a.InterruptionQueueName, "interruptionQueueName"}} {
		if g.value != nil {
			names.Given[*g.value] = path.Child(g.field)
		}
	}
	for _, key := range catalog.ControllerPolicyKeys() {
		names.ControllerPolicies[key] = catalog.TemplatePolicyName(key, cluster)
	}
	maps.Copy(names.ControllerPolicies, a.ControllerPolicyNames)
	for key, name := range a.ControllerPolicyNames {
		names.Given[name] = path.Child("controllerPolicyNames").Key(key)
	}
	for key, name := range a.InterruptionRuleNames {
		if name != "" {
			names.Rules[key] = name
		}
	}
	return names
}

// guideCustomResources are the install's pools or classes: given, else the guide's one, "default".
func guideCustomResources(given []string) []string {
	if given == nil {
		return []string{"default"}
	}
	return given
}

// ValidateAdoption checks adopt against the rest of the inputs: what the install needs named is
// named, each name is one AWS accepts, and no key names something the component has not.
// interruption and podIdentity say whether the install has a queue and a pod identity
// association to import.
func ValidateAdoption(a Adoption, rel catalog.Release, interruption, podIdentity bool) []error {
	path := field.NewPath("adopt")
	var errs []error
	names := []struct {
		field string
		value *string
		kind  awsName
	}{
		{"nodeRoleName", a.NodeRoleName, iamRoleName},
		{"instanceProfileName", a.InstanceProfileName, iamInstanceProf},
		{"controllerRoleName", a.ControllerRoleName, iamRoleName},
		{"interruptionQueueName", a.InterruptionQueueName, sqsQueueName},
	}
	for _, n := range names {
		if n.value != nil {
			errs = append(errs, n.kind.check(path.Child(n.field), *n.value))
		}
	}
	keys := catalog.ControllerPolicyKeys()
	for _, key := range slices.Sorted(maps.Keys(a.ControllerPolicyNames)) {
		p := path.Child("controllerPolicyNames").Key(key)
		if !slices.Contains(keys, key) {
			errs = append(errs, field.NotSupported(p, key, keys))
			continue
		}
		errs = append(errs, iamPolicyName.check(p, a.ControllerPolicyNames[key]))
	}
	errs = append(errs, validateAdoptedRules(path.Child("interruptionRuleNames"), a.InterruptionRuleNames, rel, interruption)...)
	id := path.Child("podIdentityAssociationId")
	switch {
	case podIdentity && a.PodIdentityAssociationId == nil:
		errs = append(errs, field.Required(id, "(the controller's pod identity association to import, `a-...`)").
			WithHint("`aws eks list-pod-identity-associations --cluster-name <clusterName> --namespace <namespace> --service-account <serviceAccountName>` prints it; if the install runs with IRSA, set controllerIdentity: irsa to adopt it as it is"))
	case !podIdentity && a.PodIdentityAssociationId != nil:
		errs = append(errs, field.Invalid(id, "only with controllerIdentity podIdentity or both (the install then has an association)"))
	case podIdentity && *a.PodIdentityAssociationId != "" && !podIdentityAssociationID.MatchString(*a.PodIdentityAssociationId):
		errs = append(errs, field.Invalidf(id, "%q is not a pod identity association id (`a-` and 17 lowercase letters or digits), or \"\" when the install has none", *a.PodIdentityAssociationId))
	}
	for i, name := range a.NodeRolePolicies {
		errs = append(errs, iamPolicyName.check(path.Child("nodeRolePolicies").Index(i), name))
	}
	for _, names := range []struct {
		field string
		names []string
	}{{"nodePoolNames", a.NodePoolNames}, {"nodeClassNames", a.NodeClassNames}} {
		for i, name := range names.names {
			errs = append(errs, CheckDNSLabel(path.Child(names.field).Index(i), name))
		}
	}
	return errs
}

// validateAdoptedRules: with interruption handling, every rule the release has is named, and
// nothing else is.
func validateAdoptedRules(path *field.Path, given map[string]string, rel catalog.Release, interruption bool) []error {
	if !interruption {
		if len(given) > 0 {
			return []error{field.Invalid(path, "only with interruptionHandling (the install then has the rules)")}
		}
		return nil
	}
	var errs, missing []error
	var keys []string
	for _, rule := range catalog.RulesOf(rel) {
		keys = append(keys, rule.Key)
		name, ok := given[rule.Key]
		if !ok {
			missing = append(missing, field.Required(path.Key(rule.Key), fmt.Sprintf("(the rule for %q; CloudFormation named it <stack>-%s-<random>)", rule.DetailType, rule.LogicalID)))
			continue
		}
		if name != "" { // "": the install has no such rule, and the component creates it
			errs = append(errs, eventBusRuleName.check(path.Key(rule.Key), name))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(given)) {
		if !slices.Contains(keys, key) {
			errs = append(errs, field.NotSupported(path.Key(key), key, keys))
		}
	}
	if len(missing) > 0 {
		missing[len(missing)-1] = missing[len(missing)-1].(*field.Error).WithHint("`aws events list-rule-names-by-target --target-arn <the queue's ARN>` lists the rules")
	}
	return append(missing, errs...)
}
