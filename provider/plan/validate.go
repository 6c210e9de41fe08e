package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// checkInputs checks the component's own plain inputs (the pools and classes are checked once
// complete), every problem in a fixed order: the refusal goldens pin it. The checks are the
// inputs package's; those that compare a value the plan resolved (the releases' namespace, the
// controller identity, whether there is a CRD release or an instance profile) get it from the
// plan, so no default is resolved twice.
func (p *Plan) checkInputs(args inputs.KarpenterArgs) []error {
	var errs []error
	rel := p.Release
	if p.RetainCrds && !p.CrdRelease && !rel.IsAutoMode() {
		errs = append(errs, field.Invalidf(field.NewPath("retainCrdsOnDelete"), "only for the karpenter-crd release, which this install does not have (installCrds false, or Karpenter %s, whose chart installs CRDs that Helm never deletes)", rel.Version))
	}
	if rel.IsAutoMode() {
		errs = append(errs, inputs.ValidateAutoModeInputs(args, p.NodeAccess)...)
	} else {
		errs = append(errs, p.checkSelfManaged(args)...)
	}
	errs = append(errs, inputs.ValidateNameAndCluster(p.Name, args, rel)...)
	return append(errs, inputs.ValidateIAM(args, rel, p.CreateInstanceProfile)...)
}

// checkSelfManaged checks what configures the install the component runs: the controller's
// identity, node access, the releases' names and chart, and what adopt takes over.
func (p *Plan) checkSelfManaged(args inputs.KarpenterArgs) []error {
	errs := inputs.ValidateIdentity(args, p.controllerIdentity, p.CreatePodIdentityAgent)
	errs = append(errs, inputs.ValidateNodeAccess(args)...)
	errs = append(errs,
		inputs.CheckDNSLabel(field.NewPath("namespace"), p.Namespace),
		inputs.CheckDNSSubdomain(field.NewPath("serviceAccountName"), p.ServiceAccount),
		inputs.ValidateChartRepository(p.chartRepository))
	errs = append(errs, inputs.CheckOCICredentials(p.chartRepository, args)...)
	errs = append(errs, inputs.CheckImageRepository(args.ControllerImageRepository))
	if args.Adopt != nil {
		errs = append(errs, inputs.ValidateAdoption(*args.Adopt, p.Release, p.Interruption, p.PodIdentity)...)
	}
	return append(errs, inputs.CheckReleaseTimeout(args.ReleaseTimeout))
}
