; Included by electron-builder's NSIS installer (nsis.include in electron-builder.yml).
;
; The native engines (onnxruntime-node, sherpa-onnx, node-llama-cpp) link against the Microsoft Visual C++
; runtime (MSVCP140.dll, VCRUNTIME140.dll, VCRUNTIME140_1.dll), which neither Electron nor those packages
; ship: without it a clean Windows cannot load them and the app shows its startup-failure dialog. The
; Windows build carries Microsoft's Redistributable as resources\vc_redist.<arch>.exe (win.extraResources;
; scripts/fetch-vc-redist.mjs fetches it). Once the app's files are in place, customInstall runs it,
; silently, when the registry says the runtime is missing or older than the engines need. A failure is
; reported with the download link and does not stop the installation. See docs/packaging.md.

!include LogicLib.nsh

; onnxruntime-node's Windows binaries are linked by MSVC 14.40 (Visual Studio 2022 17.10), and a binary
; needs a runtime at least as new as the toolset that built it (test/packaging.test.ts reads the linker
; versions from node_modules and checks them against this).
!define LVA_VC_RUNTIME_MIN_MINOR 40
!define LVA_VC_RUNTIMES_KEY "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes"

; ARCH: x64 or arm64, as in the file name and the registry key. Only the file the build shipped is there.
!macro lvaInstallVcRedist ARCH
  ${If} ${FileExists} "$INSTDIR\resources\vc_redist.${ARCH}.exe"
    ; The runtime registers in the 64-bit registry view; the installer itself is a 32-bit program.
    SetRegView 64
    ClearErrors
    ReadRegDWORD $0 HKLM "${LVA_VC_RUNTIMES_KEY}\${ARCH}" "Installed"
    ReadRegDWORD $1 HKLM "${LVA_VC_RUNTIMES_KEY}\${ARCH}" "Major"
    ReadRegDWORD $2 HKLM "${LVA_VC_RUNTIMES_KEY}\${ARCH}" "Minor"
    ${If} $0 == "1"
    ${AndIf} $1 == "14"
    ${AndIf} $2 >= ${LVA_VC_RUNTIME_MIN_MINOR}
      DetailPrint "Microsoft Visual C++ runtime (${ARCH}) 14.$2 is installed."
    ${Else}
      DetailPrint "Installing the Microsoft Visual C++ Redistributable (${ARCH})..."
      StrCpy $3 ""
      ClearErrors
      ExecWait '"$INSTDIR\resources\vc_redist.${ARCH}.exe" /install /quiet /norestart' $3
      ${If} ${Errors}
        StrCpy $4 "it could not be started"
      ${Else}
        StrCpy $4 "exit code $3"
      ${EndIf}
      ${If} $4 == "exit code 0"
        DetailPrint "The Microsoft Visual C++ Redistributable (${ARCH}) is installed."
      ${ElseIf} $4 == "exit code 3010"
        ; Installed; files that were in use are replaced at the next restart.
        DetailPrint "The Microsoft Visual C++ Redistributable (${ARCH}) is installed; restart Windows to finish."
        SetRebootFlag true
      ${ElseIf} $4 == "exit code 1638"
        DetailPrint "A newer Microsoft Visual C++ Redistributable (${ARCH}) is already installed."
      ${Else}
        ; Declined elevation, policy, a broken Windows Installer: say how to fix it, and go on installing.
        MessageBox MB_OK|MB_ICONEXCLAMATION "Installing the Microsoft Visual C++ Redistributable (${ARCH}) failed ($4).$\r$\n$\r$\n${PRODUCT_NAME} needs it to start. Install it from https://aka.ms/vs/17/release/vc_redist.${ARCH}.exe, then start ${PRODUCT_NAME}." /SD IDOK
      ${EndIf}
    ${EndIf}
    ; Needed only during installation: do not keep 12-25 MB in the app's folder.
    Delete "$INSTDIR\resources\vc_redist.${ARCH}.exe"
  ${EndIf}
!macroend

!macro customInstall
  Push $0
  Push $1
  Push $2
  Push $3
  Push $4
  !insertmacro lvaInstallVcRedist x64
  !insertmacro lvaInstallVcRedist arm64
  Pop $4
  Pop $3
  Pop $2
  Pop $1
  Pop $0
!macroend
