package plan

import (
	"errors"
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// selfManagedInputs are the component inputs that configure the Karpenter install itself. In
// Auto Mode EKS runs Karpenter, so each is refused by name rather than ignored.
var selfManagedInputs = []struct {
	field string
	set   func(inputs.KarpenterArgs) bool
	why   string
}{
	{"kubernetesVersion", func(a inputs.KarpenterArgs) bool { return a.KubernetesVersion != nil }, "it checks the compatibility matrix of self-managed Karpenter"},
	{"clusterEndpoint", func(a inputs.KarpenterArgs) bool { return a.ClusterEndpoint != nil }, "it configures the controller"},
	{"oidcProviderArn", func(a inputs.KarpenterArgs) bool { return a.OidcProviderArn != nil }, "it is for the controller role's IRSA trust"},
	{"namespace", func(a inputs.KarpenterArgs) bool { return a.Namespace != nil }, "there is no release"},
	{"serviceAccountName", func(a inputs.KarpenterArgs) bool { return a.ServiceAccountName != nil }, "there is no controller service account"},
	{"controllerIdentity", func(a inputs.KarpenterArgs) bool { return a.ControllerIdentity != nil }, "EKS gives its controller credentials"},
	{"createPodIdentityAgent", func(a inputs.KarpenterArgs) bool { return a.CreatePodIdentityAgent != nil }, "it is for the controller's Pod Identity"},
	{"controllerRoleArn", func(a inputs.KarpenterArgs) bool { return a.ControllerRoleArn != nil }, "EKS's controller uses the cluster role"},
	{"controllerPolicyStatements", func(a inputs.KarpenterArgs) bool { return len(a.ControllerPolicyStatements) > 0 }, "EKS's controller uses the cluster role; give it extra permissions there (e.g. for NodeClass tags)"},
	{"controllerPolicyArns", func(a inputs.KarpenterArgs) bool { return len(a.ControllerPolicyArns) > 0 }, "EKS's controller uses the cluster role"},
	{"interruptionHandling", func(a inputs.KarpenterArgs) bool { return a.InterruptionHandling != nil }, "EKS handles interruptions itself"},
	{"chartRepository", func(a inputs.KarpenterArgs) bool { return a.ChartRepository != nil }, "nothing is installed with Helm"},
	{"repositoryUsername", func(a inputs.KarpenterArgs) bool { return a.RepositoryUsername != nil }, "nothing is installed with Helm"},
	{"repositoryPassword", func(a inputs.KarpenterArgs) bool { return a.RepositoryPassword != nil }, "nothing is installed with Helm"},
	{"controllerImageRepository", func(a inputs.KarpenterArgs) bool { return a.ControllerImageRepository != nil }, "EKS runs the controller"},
	{"installCrds", func(a inputs.KarpenterArgs) bool { return a.InstallCrds != nil }, "EKS owns nodepools.karpenter.sh and nodeclaims.karpenter.sh; installing or uninstalling a CRD chart could delete every NodePool"},
	{"values", func(a inputs.KarpenterArgs) bool { return a.Values != nil }, "nothing is installed with Helm"},
	{"releaseTimeout", func(a inputs.KarpenterArgs) bool { return a.ReleaseTimeout != nil }, "nothing is installed with Helm"},
	{"retainCrdsOnDelete", func(a inputs.KarpenterArgs) bool { return a.RetainCrdsOnDelete != nil }, "EKS owns the CRDs"},
}

// resolveAutoMode fills an Auto Mode plan: the node role (or nodeRoleArn), its access, no
// controller. Every self-managed input that is set is reported.
func (p *Plan) resolveAutoMode(args inputs.KarpenterArgs) []error {
	var errs []error
	for _, in := range selfManagedInputs {
		if in.set(args) {
			errs = append(errs, fmt.Errorf("%s: not used with mode autoMode (%s)", in.field, in.why))
		}
	}
	p.Namespace, p.ServiceAccount, p.chartRepository = "", "", ""
	p.InstallCrds, p.ChartCrds, p.Interruption, p.CreateControllerIAM = false, false, false, false
	// EKS creates instance profiles from a NodeClass's role; one of the component's own is
	// only for classes that name it in instanceProfile.
	p.CreateInstanceProfile = p.CreateNodeRole && inputs.Deref(args.CreateInstanceProfile, false)

	// Nodes of a custom NodeClass join only through an EC2 access entry, so the component
	// creates one even for nodeRoleArn: a role EKS already has an entry for (the cluster's
	// computeConfig.nodeRoleArn) fails loudly at create — set nodeAccess none then — where a
	// missing entry fails silently.
	p.NodeAccess = inputs.Deref(args.NodeAccess, inputs.NodeAccessEntry)
	if err := inputs.CheckEnum(field.NewPath("nodeAccess"), string(p.NodeAccess), inputs.EnumValues[inputs.NodeAccess]()); err != nil {
		errs = append(errs, err)
	} else if p.NodeAccess == inputs.NodeAccessAwsAuth {
		errs = append(errs, errors.New("nodeAccess: awsAuth does not admit Auto Mode nodes; use accessEntry (an EC2 access entry with AmazonEKSAutoNodePolicy), or none when EKS already has one for the role"))
	}
	if inputs.Deref(args.ClusterAuthenticationMode, inputs.AuthenticationModeApi) == inputs.AuthenticationModeConfigMap {
		errs = append(errs, errors.New("clusterAuthenticationMode: EKS Auto Mode needs access entries (API or API_AND_CONFIG_MAP); a CONFIG_MAP cluster cannot run it"))
	}
	return errs
}
