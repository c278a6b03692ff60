"""embervision.datasets: torchvision's datasets with their real on-disk formats and download code."""
from .caltech import Caltech101, Caltech256
from .captions import Flickr8k, Flickr30k
from .celeba import CelebA
from .cifar import CIFAR10, CIFAR100
from .coco import CocoCaptions, CocoDetection
from .digits import SEMEION, USPS
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .kitti import Kitti
from .lsun import LSUN, LSUNClass
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .omniglot import Omniglot
from .places365 import Places365
from .sbu import SBU
from .stl10 import STL10
from .svhn import SVHN
from .video_datasets import HMDB51, UCF101, Kinetics400
from .video_utils import VideoClips
from .vision import StandardTransform, VisionDataset
from .voc import VOCDetection, VOCSegmentation
from .widerface import WIDERFace

__all__ = ["CIFAR10", "CIFAR100", "FakeData", "DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "KMNIST",
           "EMNIST", "QMNIST", "SVHN", "STL10", "USPS", "SEMEION", "CocoDetection", "CocoCaptions", "VOCDetection",
           "VOCSegmentation", "Caltech101", "Caltech256", "Flickr8k", "Flickr30k", "Omniglot", "Kinetics400",
           "HMDB51", "UCF101", "VideoClips", "CelebA", "WIDERFace", "StandardTransform", "VisionDataset",
           "Kitti", "LSUN", "LSUNClass", "Places365", "SBU"]
