"""PyTorch's examples/dcgan (a ConvTranspose2d/BatchNorm2d/ReLU/Tanh generator and a Conv2d/LeakyReLU
(inplace)/BatchNorm2d/Sigmoid discriminator, weights_init applied by class name, BCELoss with
torch.full labels filled in place, Adam with betas (0.5, 0.999), fake.detach() for the discriminator's
step, fixed noise, state_dicts saved) written as the PyTorch program with `ember` in place of `torch`,
scaled down to 16x16 single-channel images: scikit-learn's 8x8 digits upscaled and normalised to
[-1, 1] as the program's transforms do. Trains: the generator's images move from tanh's mid-grey
towards the digits' statistics (their mean image and their dark background)."""
import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
import ember.utils.data

datasets = pytest.importorskip("sklearn.datasets")

nz, ngf, ndf, nc = 16, 16, 16, 1


# custom weights initialization called on netG and netD
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            # state size. (ngf*4) x 4 x 4
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 8 x 8
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 16 x 16
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            # input is (nc) x 16 x 16
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf) x 8 x 8
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*2) x 4 x 4
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        output = self.main(input)
        return output.view(-1, 1).squeeze(1)


def _digit_images():
    digits = datasets.load_digits()
    small = torch.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)
    big = F.interpolate(small, size=(16, 16), mode="bilinear", align_corners=False).clamp(0, 1)
    return (big - 0.5) / 0.5  # transforms.Normalize((0.5,), (0.5,))


def test_dcgan_trains(tmp_path):
    torch.manual_seed(999)
    device = torch.device("cpu")
    images = _digit_images()
    dataset = torch.utils.data.TensorDataset(images, torch.zeros(len(images)))
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)

    netG = Generator().to(device)
    netG.apply(weights_init)
    netD = Discriminator().to(device)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(256, nz, 1, 1, device=device)
    real_label = 1
    fake_label = 0
    optimizerD = optim.Adam(netD.parameters(), lr=0.0002 * 5, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=0.0002 * 5, betas=(0.5, 0.999))

    def sample_statistics():
        netG.eval()
        with torch.no_grad():
            fake = netG(fixed_noise)
        netG.train()
        mean_image_gap = (fake.mean(0) - images.mean(0)).abs().mean().item()
        background = fake[:, :, :, :2].mean().item()  # the digits' two leftmost columns are dark (-1)
        return mean_image_gap, background

    start_gap, start_background = sample_statistics()
    history = []
    for epoch in range(5):
        for i, data in enumerate(dataloader, 0):
            ############################
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            ###########################
            # train with real
            netD.zero_grad()
            real_cpu = data[0].to(device)
            batch_size = real_cpu.size(0)
            label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)
            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = output.mean().item()
            # train with fake
            noise = torch.randn(batch_size, nz, 1, 1, device=device)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = output.mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()
            ############################
            # (2) Update G network: maximize log(D(G(z)))
            ###########################
            netG.zero_grad()
            label.fill_(real_label)  # fake labels are real for generator cost
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = output.mean().item()
            optimizerG.step()
            history.append((errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
    assert np.isfinite(np.array(history)).all()
    end_gap, end_background = sample_statistics()
    # tanh of a small start gives mid-grey (0) everywhere; the digits' mean image is far from that
    assert start_gap > 0.4 and abs(start_background) < 0.3, (start_gap, start_background)
    assert end_gap < 0.5 * start_gap, (start_gap, end_gap)
    assert end_background < -0.5, end_background
    # the discriminator learned to tell real from fake at some point (D(x) above D(G(z)) on average)
    d_x, d_g = np.mean([h[2] for h in history]), np.mean([h[3] for h in history])
    assert d_x > d_g, (d_x, d_g)

    torch.save(netG.state_dict(), tmp_path / 'netG_epoch_4.pth')
    torch.save(netD.state_dict(), tmp_path / 'netD_epoch_4.pth')
    reloaded = Generator()
    reloaded.load_state_dict(torch.load(tmp_path / 'netG_epoch_4.pth'))
    reloaded.eval()
    netG.eval()
    with torch.no_grad():
        assert torch.equal(reloaded(fixed_noise), netG(fixed_noise))
