# Config, device profiles and path patterns shared by every stage.
from pathlib import Path

from mobifrag.kernel import KernelInputError, kernel_dir
from mobifrag.profiles import ProfileError, load_device

PYTHON = sys.executable
RESULTS = "results/{device}/{scale}"
FIGURES = "paper-figures/{device}/{scale}"


def device_profile(name):
    try:
        return load_device(name)
    except ProfileError as error:
        raise WorkflowError(str(error)) from None


def scale_params(scale):
    if scale not in config["scales"]:
        known = ", ".join(config["scales"])
        raise WorkflowError(f"config: scale {scale!r} is not one of: {known}")
    return config["scales"][scale]


def kernel_image(device):
    """The kernel image the device's platform boots, built by rules/kernel.smk."""
    target = device_profile(device)["platform"]["kernel"]
    try:
        folder = kernel_dir(
            Path(config["kernel"]["source"]), Path(config["kernel"]["series"]), target
        )
    except KernelInputError as error:
        raise WorkflowError(str(error)) from None
    return str(folder.relative_to(workflow.basedir) / "bzImage")


# Checked now, so a bad profile or scale stops the run before any work.
device_profile(config["device"])
scale_params(config["scale"])
