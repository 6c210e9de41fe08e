package inputs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

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
}

func (a *Adoption) Annotate(an infer.Annotator) {
	an.Describe(&a, "A running Karpenter install for the component to take over without replacing a node: every child the component would create is imported from what exists (Pulumi's `import`), under the name it has, and updated in place where the inputs ask for something else; a change that would replace an imported child fails instead. The Helm releases are imported by their names (`karpenter`, in `namespace`), the CRDs are handed to the `karpenter-crd` release, and each NodePool and node class by its name (the getting-started guide's are both `default`). Keep `adopt` in the program after the first `up`: it holds the names of what was imported. Unset names are those Karpenter's getting-started guide gives the cluster (its CloudFormation template and eksctl config). docs/migrating.md has the steps for each way of installing Karpenter.")
	an.Describe(&a.NodeRoleName, "Name of the node role to import (with its four AWS managed policy attachments and its access entry). "+DefaultWith("KarpenterNodeRole-<clusterName>", "the template's"))
	an.Describe(&a.InstanceProfileName, "Name of the node instance profile to import, when the component has one (`createInstanceProfile`). "+DefaultWith("KarpenterNodeInstanceProfile-<clusterName>", "for versions before 0.32, whose template creates it; from 0.32 the template creates none, and the component creates its own"))
	an.Describe(&a.ControllerRoleName, "Name of the controller role to import. "+DefaultWith("<clusterName>-karpenter", "the role the guide's eksctl config creates for the service account"))
	an.Describe(&a.ControllerPolicyNames, "Names of the controller's managed policies to import (with their attachments to the controller role), keyed like the component's policies: `policy` where there is one (before 1.9); `node-lifecycle`, `iam-integration`, `eks-integration`, `interruption`, `resource-discovery` and `zonal-shift` where they are split (from 1.9). A key not given takes the template's name: `KarpenterControllerPolicy-<clusterName>`, `KarpenterControllerNodeLifecyclePolicy-<clusterName>`, `KarpenterControllerIAMIntegrationPolicy-<clusterName>`, and so on.")
	an.Describe(&a.InterruptionQueueName, "Name of the interruption queue to import (with its policy). "+DefaultWith("<clusterName>", "the template's"))
	an.Describe(&a.InterruptionRuleNames, "Names of the EventBridge rules that feed the interruption queue, keyed `scheduledChange`, `spotInterruption`, `rebalance`, `stateChange` and (from 1.10) `capacityReservation`. Required with `interruptionHandling`: CloudFormation names them `<stack>-<LogicalId>-<random>` (e.g. `Karpenter-my-cluster-ScheduledChangeRule-1A2B3C4D5E6F`); `aws events list-rule-names-by-target --target-arn <queue ARN>` lists them. An empty name says the install has no such rule (e.g. `capacityReservation`, which came with 1.10): the component creates it.")
	an.Describe(&a.PodIdentityAssociationId, "Id of the controller's pod identity association to import (`a-...`). Required when `controllerIdentity` is `podIdentity` or `both`: `aws eks list-pod-identity-associations --cluster-name <clusterName> --namespace <namespace> --service-account <serviceAccountName>` prints it.")
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
	}
	for _, key := range catalog.ControllerPolicyKeys() {
		names.ControllerPolicies[key] = catalog.TemplatePolicyName(key, cluster)
	}
	maps.Copy(names.ControllerPolicies, a.ControllerPolicyNames)
	for key, name := range a.InterruptionRuleNames {
		if name != "" {
			names.Rules[key] = name
		}
	}
	return names
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
	case podIdentity && strings.TrimSpace(*a.PodIdentityAssociationId) == "":
		errs = append(errs, field.Invalid(id, "is empty"))
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
