package provider

// Controller policies of the official getting-started CloudFormation templates of each
// generation (reference/karpenter-cloudformation/cfn-v*.yaml), with the template parameters
// substituted: partition aws, region us-west-2, account 123456789012, cluster demo. The node
// role and queue ARNs are ${NodeRoleArn} and ${QueueArn} (filled from the render outputs);
// cfn-v0.31 names its node role KarpenterNodeRole-${ClusterName} in PassRole, where the
// component passes its own node role. Transcribed once from the templates; the tests do not
// read the reference files.
var officialControllerPolicies = map[string]string{
	"0.31": `{
 "Version": "2012-10-17",
 "Statement": [
  {
   "Sid": "AllowScopedEC2InstanceActions",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2::image/*",
    "arn:aws:ec2:us-west-2::snapshot/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*",
    "arn:aws:ec2:us-west-2:*:security-group/*",
    "arn:aws:ec2:us-west-2:*:subnet/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ]
  },
  {
   "Sid": "AllowScopedEC2InstanceActionsWithTags",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet",
    "ec2:CreateLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/provisioner-name": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceCreationTagging",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "ec2:CreateAction": [
      "RunInstances",
      "CreateFleet",
      "CreateLaunchTemplate"
     ]
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/provisioner-name": "*"
    }
   }
  },
  {
   "Sid": "AllowMachineMigrationTagging",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/karpenter.sh/managed-by": "demo"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/provisioner-name": "*"
    },
    "ForAllValues:StringEquals": {
     "aws:TagKeys": [
      "karpenter.sh/provisioner-name",
      "karpenter.sh/managed-by"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedDeletion",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:TerminateInstances",
    "ec2:DeleteLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/provisioner-name": "*"
    }
   }
  },
  {
   "Sid": "AllowRegionalReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": [
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestedRegion": "us-west-2"
    }
   }
  },
  {
   "Sid": "AllowSSMReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
   "Action": "ssm:GetParameter"
  },
  {
   "Sid": "AllowPricingReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": "pricing:GetProducts"
  },
  {
   "Sid": "AllowInterruptionQueueActions",
   "Effect": "Allow",
   "Resource": "${QueueArn}",
   "Action": [
    "sqs:DeleteMessage",
    "sqs:GetQueueAttributes",
    "sqs:GetQueueUrl",
    "sqs:ReceiveMessage"
   ]
  },
  {
   "Sid": "AllowPassingInstanceRole",
   "Effect": "Allow",
   "Resource": "${NodeRoleArn}",
   "Action": "iam:PassRole",
   "Condition": {
    "StringEquals": {
     "iam:PassedToService": "ec2.amazonaws.com"
    }
   }
  },
  {
   "Sid": "AllowAPIServerEndpointDiscovery",
   "Effect": "Allow",
   "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
   "Action": "eks:DescribeCluster"
  }
 ]
}`,
	"0.37": `{
 "Version": "2012-10-17",
 "Statement": [
  {
   "Sid": "AllowScopedEC2InstanceAccessActions",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2::image/*",
    "arn:aws:ec2:us-west-2::snapshot/*",
    "arn:aws:ec2:us-west-2:*:security-group/*",
    "arn:aws:ec2:us-west-2:*:subnet/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ]
  },
  {
   "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:launch-template/*",
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedEC2InstanceActionsWithTags",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet",
    "ec2:CreateLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceCreationTagging",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
   ],
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "ec2:CreateAction": [
      "RunInstances",
      "CreateFleet",
      "CreateLaunchTemplate"
     ]
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceTagging",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    },
    "ForAllValues:StringEquals": {
     "aws:TagKeys": [
      "karpenter.sh/nodeclaim",
      "Name"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedDeletion",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:TerminateInstances",
    "ec2:DeleteLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowRegionalReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": [
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestedRegion": "us-west-2"
    }
   }
  },
  {
   "Sid": "AllowSSMReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
   "Action": "ssm:GetParameter"
  },
  {
   "Sid": "AllowPricingReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": "pricing:GetProducts"
  },
  {
   "Sid": "AllowInterruptionQueueActions",
   "Effect": "Allow",
   "Resource": "${QueueArn}",
   "Action": [
    "sqs:DeleteMessage",
    "sqs:GetQueueUrl",
    "sqs:ReceiveMessage"
   ]
  },
  {
   "Sid": "AllowPassingInstanceRole",
   "Effect": "Allow",
   "Resource": "${NodeRoleArn}",
   "Action": "iam:PassRole",
   "Condition": {
    "StringEquals": {
     "iam:PassedToService": "ec2.amazonaws.com"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileCreationActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:CreateInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileTagActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:TagInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2",
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:AddRoleToInstanceProfile",
    "iam:RemoveRoleFromInstanceProfile",
    "iam:DeleteInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowInstanceProfileReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": "iam:GetInstanceProfile"
  },
  {
   "Sid": "AllowAPIServerEndpointDiscovery",
   "Effect": "Allow",
   "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
   "Action": "eks:DescribeCluster"
  }
 ]
}`,
	"1.0": `{
 "Version": "2012-10-17",
 "Statement": [
  {
   "Sid": "AllowScopedEC2InstanceAccessActions",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2::image/*",
    "arn:aws:ec2:us-west-2::snapshot/*",
    "arn:aws:ec2:us-west-2:*:security-group/*",
    "arn:aws:ec2:us-west-2:*:subnet/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ]
  },
  {
   "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:launch-template/*",
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedEC2InstanceActionsWithTags",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet",
    "ec2:CreateLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceCreationTagging",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
   ],
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "ec2:CreateAction": [
      "RunInstances",
      "CreateFleet",
      "CreateLaunchTemplate"
     ]
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceTagging",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    },
    "StringEqualsIfExists": {
     "aws:RequestTag/eks:eks-cluster-name": "demo"
    },
    "ForAllValues:StringEquals": {
     "aws:TagKeys": [
      "eks:eks-cluster-name",
      "karpenter.sh/nodeclaim",
      "Name"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedDeletion",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:TerminateInstances",
    "ec2:DeleteLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowRegionalReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": [
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestedRegion": "us-west-2"
    }
   }
  },
  {
   "Sid": "AllowSSMReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
   "Action": "ssm:GetParameter"
  },
  {
   "Sid": "AllowPricingReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": "pricing:GetProducts"
  },
  {
   "Sid": "AllowInterruptionQueueActions",
   "Effect": "Allow",
   "Resource": "${QueueArn}",
   "Action": [
    "sqs:DeleteMessage",
    "sqs:GetQueueUrl",
    "sqs:ReceiveMessage"
   ]
  },
  {
   "Sid": "AllowPassingInstanceRole",
   "Effect": "Allow",
   "Resource": "${NodeRoleArn}",
   "Action": "iam:PassRole",
   "Condition": {
    "StringEquals": {
     "iam:PassedToService": [
      "ec2.amazonaws.com",
      "ec2.amazonaws.com.cn"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileCreationActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:CreateInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileTagActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:TagInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2",
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:AddRoleToInstanceProfile",
    "iam:RemoveRoleFromInstanceProfile",
    "iam:DeleteInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowInstanceProfileReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": "iam:GetInstanceProfile"
  },
  {
   "Sid": "AllowAPIServerEndpointDiscovery",
   "Effect": "Allow",
   "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
   "Action": "eks:DescribeCluster"
  }
 ]
}`,
	"1.8": `{
 "Version": "2012-10-17",
 "Statement": [
  {
   "Sid": "AllowScopedEC2InstanceAccessActions",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2::image/*",
    "arn:aws:ec2:us-west-2::snapshot/*",
    "arn:aws:ec2:us-west-2:*:security-group/*",
    "arn:aws:ec2:us-west-2:*:subnet/*",
    "arn:aws:ec2:us-west-2:*:capacity-reservation/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ]
  },
  {
   "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:launch-template/*",
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedEC2InstanceActionsWithTags",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*",
    "arn:aws:ec2:us-west-2:*:capacity-reservation/*"
   ],
   "Action": [
    "ec2:RunInstances",
    "ec2:CreateFleet",
    "ec2:CreateLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceCreationTagging",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:fleet/*",
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:volume/*",
    "arn:aws:ec2:us-west-2:*:network-interface/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*",
    "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
   ],
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "ec2:CreateAction": [
      "RunInstances",
      "CreateFleet",
      "CreateLaunchTemplate"
     ]
    },
    "StringLike": {
     "aws:RequestTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedResourceTagging",
   "Effect": "Allow",
   "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
   "Action": "ec2:CreateTags",
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    },
    "StringEqualsIfExists": {
     "aws:RequestTag/eks:eks-cluster-name": "demo"
    },
    "ForAllValues:StringEquals": {
     "aws:TagKeys": [
      "eks:eks-cluster-name",
      "karpenter.sh/nodeclaim",
      "Name"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedDeletion",
   "Effect": "Allow",
   "Resource": [
    "arn:aws:ec2:us-west-2:*:instance/*",
    "arn:aws:ec2:us-west-2:*:launch-template/*"
   ],
   "Action": [
    "ec2:TerminateInstances",
    "ec2:DeleteLaunchTemplate"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.sh/nodepool": "*"
    }
   }
  },
  {
   "Sid": "AllowRegionalReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": [
    "ec2:DescribeCapacityReservations",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestedRegion": "us-west-2"
    }
   }
  },
  {
   "Sid": "AllowSSMReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
   "Action": "ssm:GetParameter"
  },
  {
   "Sid": "AllowPricingReadActions",
   "Effect": "Allow",
   "Resource": "*",
   "Action": "pricing:GetProducts"
  },
  {
   "Sid": "AllowInterruptionQueueActions",
   "Effect": "Allow",
   "Resource": "${QueueArn}",
   "Action": [
    "sqs:DeleteMessage",
    "sqs:GetQueueUrl",
    "sqs:ReceiveMessage"
   ]
  },
  {
   "Sid": "AllowPassingInstanceRole",
   "Effect": "Allow",
   "Resource": "${NodeRoleArn}",
   "Action": "iam:PassRole",
   "Condition": {
    "StringEquals": {
     "iam:PassedToService": [
      "ec2.amazonaws.com",
      "ec2.amazonaws.com.cn"
     ]
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileCreationActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:CreateInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileTagActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:TagInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2",
     "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
     "aws:RequestTag/eks:eks-cluster-name": "demo",
     "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
     "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowScopedInstanceProfileActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": [
    "iam:AddRoleToInstanceProfile",
    "iam:RemoveRoleFromInstanceProfile",
    "iam:DeleteInstanceProfile"
   ],
   "Condition": {
    "StringEquals": {
     "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
     "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2"
    },
    "StringLike": {
     "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"
    }
   }
  },
  {
   "Sid": "AllowInstanceProfileReadActions",
   "Effect": "Allow",
   "Resource": "arn:aws:iam::123456789012:instance-profile/*",
   "Action": "iam:GetInstanceProfile"
  },
  {
   "Sid": "AllowUnscopedInstanceProfileListAction",
   "Effect": "Allow",
   "Resource": "*",
   "Action": "iam:ListInstanceProfiles"
  },
  {
   "Sid": "AllowAPIServerEndpointDiscovery",
   "Effect": "Allow",
   "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
   "Action": "eks:DescribeCluster"
  }
 ]
}`,
}
