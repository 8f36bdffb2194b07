{
  description = "mobifrag: reproducible study of file fragmentation on mobile flash storage";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.05";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = with pkgs; [
            # workflow and analysis
            snakemake
            python3
            python3Packages.jsonschema
            python3Packages.pyyaml
            python3Packages.pytest
            ruff
            snakefmt
            (rWrapper.override { packages = [ rPackages.ggplot2 ]; })
            # workloads and measurement, run inside the guest over the 9p root
            fio
            filebench
            blktrace
            e2fsprogs
            f2fs-tools
            sqlite
            # emulator and kernel builds
            qemu
            gnumake
            gcc
            flex
            bison
            bc
            elfutils
            openssl
            cpio
            xz
            patch
            # ftl-sim
            cargo
            rustc
            clippy
            rustfmt
            # real hardware (HiKey960 / rooted phones)
            android-tools
            pkgsCross.aarch64-multiplatform.stdenv.cc
          ];
          # The kernel stage reads the source tarball from config/config.yaml's
          # kernel.source; point it at nixpkgs' 6.1 source when there is no Debian package:
          #   snakemake --config kernel='{source: '"$MOBIFRAG_KERNEL_SOURCE"', series: kernel-patches/6.1/series}'
          MOBIFRAG_KERNEL_SOURCE = pkgs.linux_6_1.src;
        };
      });
    };
}
