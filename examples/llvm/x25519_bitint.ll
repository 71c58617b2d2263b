; ModuleID = 'x25519_bitint.c'
source_filename = "x25519_bitint.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @fe_mul(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = load i256, ptr %1, align 8, !tbaa !5
  %5 = load i256, ptr %2, align 8, !tbaa !5
  %6 = and i256 %4, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %7 = and i256 %5, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %8 = zext nneg i256 %6 to i510
  %9 = zext nneg i256 %7 to i510
  %10 = mul nuw i510 %9, %8
  %11 = urem i510 %10, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %12 = trunc nuw nsw i510 %11 to i256
  store i256 %12, ptr %0, align 8, !tbaa !5
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @fe_sq(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1) local_unnamed_addr #0 {
  %3 = load i256, ptr %1, align 8, !tbaa !5
  %4 = and i256 %3, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %5 = zext nneg i256 %4 to i510
  %6 = mul nuw i510 %5, %5
  %7 = urem i510 %6, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %8 = trunc nuw nsw i510 %7 to i256
  store i256 %8, ptr %0, align 8, !tbaa !5
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @x25519_ladderstep(ptr nocapture noundef writeonly %0, ptr nocapture noundef writeonly %1, ptr nocapture noundef writeonly %2, ptr nocapture noundef writeonly %3, ptr nocapture noundef readonly %4, ptr nocapture noundef readonly %5, ptr nocapture noundef readonly %6, ptr nocapture noundef readonly %7, ptr nocapture noundef readonly %8, ptr nocapture noundef readonly %9) local_unnamed_addr #0 {
  %11 = load i256, ptr %4, align 8, !tbaa !5
  %12 = and i256 %11, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %13 = load i256, ptr %5, align 8, !tbaa !5
  %14 = trunc i256 %13 to i255
  %15 = load i256, ptr %6, align 8, !tbaa !5
  %16 = trunc i256 %15 to i255
  %17 = load i256, ptr %7, align 8, !tbaa !5
  %18 = trunc i256 %17 to i255
  %19 = load i256, ptr %8, align 8, !tbaa !5
  %20 = trunc i256 %19 to i255
  %21 = load i256, ptr %9, align 8, !tbaa !5
  %22 = trunc i256 %21 to i255
  %23 = and i255 %22, 1
  %24 = sub nsw i255 0, %23
  %25 = xor i255 %18, %14
  %26 = and i255 %25, %24
  %27 = xor i255 %26, %14
  %28 = zext i255 %27 to i256
  %29 = xor i255 %26, %18
  %30 = zext i255 %29 to i256
  %31 = xor i255 %20, %16
  %32 = and i255 %31, %24
  %33 = xor i255 %32, %16
  %34 = zext i255 %33 to i256
  %35 = xor i255 %32, %20
  %36 = zext i255 %35 to i256
  %37 = add nuw i256 %34, %28
  %38 = urem i256 %37, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %39 = zext nneg i256 %38 to i510
  %40 = mul nuw i510 %39, %39
  %41 = urem i510 %40, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %42 = trunc nuw nsw i510 %41 to i256
  %43 = add nuw i256 %28, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %44 = sub i256 %43, %34
  %45 = urem i256 %44, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %46 = zext nneg i256 %45 to i510
  %47 = mul nuw i510 %46, %46
  %48 = urem i510 %47, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %49 = trunc nuw nsw i510 %48 to i256
  %50 = add nuw i256 %42, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %51 = sub nuw i256 %50, %49
  %52 = freeze i256 %51
  %53 = add i256 %52, 19
  %54 = icmp ult i256 %52, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %55 = select i1 %54, i256 %52, i256 %53
  %56 = and i256 %55, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %57 = add nuw i256 %36, %30
  %58 = urem i256 %57, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %59 = add nuw i256 %30, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %60 = sub i256 %59, %36
  %61 = urem i256 %60, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %62 = zext nneg i256 %61 to i510
  %63 = mul nuw i510 %62, %39
  %64 = urem i510 %63, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %65 = trunc nuw nsw i510 %64 to i256
  %66 = zext nneg i256 %58 to i510
  %67 = mul nuw i510 %46, %66
  %68 = urem i510 %67, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %69 = trunc nuw nsw i510 %68 to i256
  %70 = add nuw i256 %69, %65
  %71 = freeze i256 %70
  %72 = add i256 %71, 19
  %73 = icmp ult i256 %71, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %74 = select i1 %73, i256 %71, i256 %72
  %75 = and i256 %74, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %76 = add nuw i256 %65, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %77 = sub nuw i256 %76, %69
  %78 = freeze i256 %77
  %79 = add i256 %78, 19
  %80 = icmp ult i256 %78, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %81 = select i1 %80, i256 %78, i256 %79
  %82 = and i256 %81, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %83 = zext nneg i256 %75 to i510
  %84 = mul nuw i510 %83, %83
  %85 = urem i510 %84, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %86 = trunc nuw nsw i510 %85 to i256
  store i256 %86, ptr %2, align 8, !tbaa !5
  %87 = zext nneg i256 %82 to i510
  %88 = mul nuw i510 %87, %87
  %89 = urem i510 %88, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %90 = zext nneg i256 %12 to i510
  %91 = mul nuw i510 %89, %90
  %92 = urem i510 %91, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %93 = trunc nuw nsw i510 %92 to i256
  store i256 %93, ptr %3, align 8, !tbaa !5
  %94 = mul nuw i510 %48, %41
  %95 = urem i510 %94, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %96 = trunc nuw nsw i510 %95 to i256
  store i256 %96, ptr %0, align 8, !tbaa !5
  %97 = zext nneg i256 %56 to i510
  %98 = mul nuw nsw i510 %97, 121665
  %99 = urem i510 %98, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %100 = trunc nuw nsw i510 %99 to i256
  %101 = add nuw i256 %100, %42
  %102 = freeze i256 %101
  %103 = add i256 %102, 19
  %104 = icmp ult i256 %102, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %105 = select i1 %104, i256 %102, i256 %103
  %106 = and i256 %105, 57896044618658097711785492504343953926634992332820282019728792003956564819967
  %107 = zext nneg i256 %106 to i510
  %108 = mul nuw i510 %107, %97
  %109 = urem i510 %108, 57896044618658097711785492504343953926634992332820282019728792003956564819949
  %110 = trunc nuw nsw i510 %109 to i256
  store i256 %110, ptr %1, align 8, !tbaa !5
  ret void
}

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"_BitInt(255)", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
