{
  description = "mobifrag: reproducible study of file fragmentation on mobile flash storage";

  # nixpkgs pinned to one revision of the nixos-25.11 release channel (2026-05-10), whose
  # Snakemake is 9 (nixpkgs moved to Snakemake 9 in April 2025, before 25.11 branched).
  # flake.lock (the revision's narHash) is written by `nix flake lock` on a machine that
  # reaches GitHub; docs/nix.md says how, and how to move the pin.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/8fd9daa3db09ced9700431c5b7ad0e8ba199b575";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});

      # A PyPI sdist at the version and sha256 that requirements.lock pins
      # (tests/workflow/test_environment.py checks both against the lock).
      fromPypi = pname: version: hash: ps: attrs:
        ps.buildPythonPackage ({
          inherit pname version;
          pyproject = true;
          src = ps.fetchPypi { inherit pname version hash; };
          # nixpkgs' numpy, pandas and snakemake-interface-* stand in for the lock's
          pythonRelaxDeps = true;
          doCheck = false;
        } // attrs);

      # The study's own pieces, built from pinned sources.
      own = pkgs:
        let
          cross = pkgs.pkgsCross.aarch64-multiplatform;
        in
        rec {
          # Python: the direct dependencies of requirements.txt, from nixpkgs where it has
          # them; the SLURM executor plugin, which it has not, from PyPI as locked.
          python = pythonInterpreter.withPackages pythonLibraries;
          pythonInterpreter = pkgs.python3.override {
            self = pythonInterpreter;
            packageOverrides = pself: psuper: {
              snakemake-executor-plugin-slurm-jobstep =
                fromPypi "snakemake_executor_plugin_slurm_jobstep" "0.6.1"
                  "sha256-DtL+qojR1k813Ga0mQ8THT8VFzPt7OkNXpUt7A6Pf+s=" pself {
                    build-system = [ pself.poetry-core ];
                    dependencies = with pself; [
                      snakemake-interface-common
                      snakemake-interface-executor-plugins
                    ];
                    pythonImportsCheck = [ "snakemake_executor_plugin_slurm_jobstep" ];
                  };
              snakemake-executor-plugin-slurm =
                fromPypi "snakemake_executor_plugin_slurm" "2.8.0"
                  "sha256-l9kxKEsUUranr9LxttIALCeM56Xo9qmC3HdoiBfTA5k=" pself {
                    build-system = [ pself.hatchling ];
                    dependencies = with pself; [
                      numpy
                      pandas
                      pyyaml
                      snakemake-executor-plugin-slurm-jobstep
                      snakemake-interface-common
                      snakemake-interface-executor-plugins
                      throttler
                    ];
                    pythonImportsCheck = [ "snakemake_executor_plugin_slurm" ];
                  };
            };
          };

          # requirements.txt's packages by their nixpkgs names (ruff and snakefmt are tools)
          pythonLibraries = ps: with ps; [
            snakemake
            snakemake-executor-plugin-slurm
            jsonschema
            pyyaml
            pytest
            scikit-learn
            scipy
            tabulate
            jinja2
            markupsafe
          ];

          R = pkgs.rWrapper.override { packages = rLibraries pkgs.rPackages; };
          rLibraries = rPackages: with rPackages; [
            ggplot2
            lintr
          ];

          # filebench at the study's commit (../shared/vendor/filebench-22620e6.tar.gz has
          # the same tree); autoreconf, configure and make, as upstream builds it.
          filebench = pkgs.stdenv.mkDerivation {
            pname = "filebench";
            version = "1.5-alpha3-unstable-22620e6";
            src = pkgs.fetchFromGitHub {
              owner = "filebench";
              repo = "filebench";
              rev = "22620e602cbbebad90c0bd041896ebccf70dbf5f";
              hash = "sha256-IVQSEUZOC+X3C994tnk0n3NI7yu2yPAWlPA7zdSbvlg=";
            };
            nativeBuildInputs = with pkgs; [ autoreconfHook bison flex ];
            # the C dialect it was measured with (Debian 12's gcc default)
            env.NIX_CFLAGS_COMPILE = "-std=gnu17";
            meta.mainProgram = "filebench";
          };

          # FlashSim at the study's commit (../shared/vendor/flashsim-53098b0.tar.gz has the
          # same tree): the source the FlashSim stage builds with g++ and Boost.
          flashsim-src = pkgs.fetchFromGitHub {
            owner = "MatiasBjorling";
            repo = "flashsim";
            rev = "53098b017a4dbbe27665a755000738ed70862141";
            hash = "sha256-9O0Cx8PasE0L3QZRa8vAuf9cR4B7GzxXlUGzTyWdf6o=";
          };

          # Postmark 1.53 from Debian's source (nixpkgs has no Postmark): the file Debian's
          # postmark package builds; K&R C, so the old dialect.
          postmark = pkgs.stdenv.mkDerivation {
            pname = "postmark";
            version = "1.53";
            src = pkgs.fetchurl {
              urls = [
                "mirror://debian/pool/main/p/postmark/postmark_1.53.orig.tar.gz"
              ];
              hash = "sha256-ioj9Mi4cXwdy33Wd5zxCqgVbHNNsu6TObuYQrFo8R9M=";
            };
            buildPhase = ''
              $CC -O2 -std=gnu89 -Wno-error=implicit-function-declaration \
                -Wno-error=implicit-int -Wno-error=int-conversion -o postmark postmark-1.53.c
            '';
            installPhase = ''
              install -Dm755 postmark $out/bin/postmark
              install -Dm644 postmark.1 $out/share/man/man1/postmark.1
            '';
            meta.mainProgram = "postmark";
          };

          # The aarch64 cross toolchain under Debian's prefix (rules/common/devices.smk's
          # ARM64_CROSS is aarch64-linux-gnu-): gcc, binutils and the aarch64 glibc.
          aarch64-linux-gnu = pkgs.runCommand "aarch64-linux-gnu" { } ''
            mkdir -p $out/bin
            for tool in ${cross.stdenv.cc}/bin/aarch64-unknown-linux-gnu-* \
                        ${cross.stdenv.cc.bintools}/bin/aarch64-unknown-linux-gnu-*; do
              ln -sf "$tool" "$out/bin/aarch64-linux-gnu-''${tool##*/aarch64-unknown-linux-gnu-}"
            done
          '';
          # The static SQLite the arm64 agent links (Debian: libsqlite3-dev:arm64).
          arm64-sqlite-static = cross.pkgsStatic.sqlite;
        };

      # Every tool the pipeline runs, one per line. tests/workflow/test_environment.py maps each to
      # bootstrap/debian-packages.txt (or says why it has no Debian package) and fails on
      # a tool in one list and not the other.
      tools = pkgs: mine: with pkgs; [
        # workflow, analysis and lint
        mine.python
        ruff
        snakefmt
        mine.R
        shellcheck
        nix
        chromium  # the HTML report's browser test
        # kernel stage (the source itself: MOBIFRAG_KERNEL_SOURCE below)
        bc
        bison
        flex
        cpio
        xz
        lz4
        gnupatch
        gnumake
        gcc
        # platform stage: QEMU (x86_64 and aarch64 system emulators, qemu-img)
        qemu
        # in the guest: file systems, workloads and tracing
        e2fsprogs
        f2fs-tools
        fio
        blktrace
        sqlite
        mine.postmark
        mine.filebench
        # filebench's build from its pinned source on the Debian path (benchmarks/filebench)
        autoconf
        automake
        libtool
        # ftl-sim
        cargo
        rustc
        clippy
        rustfmt
        # real boards: the arm64 cross compiler, adb, fastboot and mkbootimg
        mine.aarch64-linux-gnu
        android-tools
      ];

      # Libraries the native builds compile and link against: the kernel's libelf and
      # OpenSSL, the agent's SQLite, FlashSim's Boost headers (its source:
      # MOBIFRAG_FLASHSIM_SOURCE below). Same rule as tools.
      libraries = pkgs: with pkgs; [
        elfutils
        openssl
        sqlite
        boost
      ];
    in
    {
      packages = forAll (pkgs:
        let mine = own pkgs; in {
          inherit (mine) filebench postmark flashsim-src python;
        });

      devShells = forAll (pkgs:
        let mine = own pkgs; in {
          default = pkgs.mkShell {
            packages = tools pkgs mine;
            buildInputs = libraries pkgs;
            # The kernel stage reads config/config.yaml's kernel.source (Debian's
            # linux-source-6.1 tarball); in this shell point it at nixpkgs' 6.1 source:
            #   snakemake --config kernel='{source: '"$MOBIFRAG_KERNEL_SOURCE"', series: kernel-patches/6.1/series}'
            MOBIFRAG_KERNEL_SOURCE = pkgs.linux_6_1.src;
            MOBIFRAG_FLASHSIM_SOURCE = mine.flashsim-src;
            # config/config.yaml's arm64.sqlite_static, for the arm64 agent
            MOBIFRAG_ARM64_SQLITE_STATIC = "${mine.arm64-sqlite-static.out}/lib/libsqlite3.a";
          };
        });
    };
}
