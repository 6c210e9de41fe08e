// Installs Karpenter, the Kubernetes node autoscaler, on an Amazon EKS cluster: IAM, interruption handling, Helm releases and NodePools, correct for each Karpenter version.
package karpenter
