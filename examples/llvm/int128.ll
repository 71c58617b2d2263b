; ModuleID = 'examples/llvm/int128.c'
source_filename = "examples/llvm/int128.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @mul127(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = load i64, ptr %1, align 8, !tbaa !5
  %5 = zext i64 %4 to i128
  %6 = load i64, ptr %2, align 8, !tbaa !5
  %7 = zext i64 %6 to i128
  %8 = mul nuw i128 %7, %5
  %9 = getelementptr inbounds i8, ptr %2, i64 8
  %10 = load i64, ptr %9, align 8, !tbaa !5
  %11 = zext i64 %10 to i128
  %12 = mul nuw i128 %11, %5
  %13 = getelementptr inbounds i8, ptr %1, i64 8
  %14 = load i64, ptr %13, align 8, !tbaa !5
  %15 = zext i64 %14 to i128
  %16 = mul nuw i128 %15, %7
  %17 = add i128 %16, %12
  %18 = mul nuw i128 %15, %11
  %19 = shl i128 %17, 64
  %20 = add i128 %19, %8
  %21 = icmp ult i128 %20, %8
  %22 = zext i1 %21 to i128
  %23 = lshr i128 %17, 64
  %24 = add nuw i128 %23, %18
  %25 = add nuw i128 %24, %22
  %26 = and i128 %20, 170141183460469231731687303715884105727
  %27 = lshr i128 %20, 127
  %28 = add nuw i128 %26, %27
  %29 = shl i128 %25, 1
  %30 = add i128 %28, %29
  %31 = and i128 %30, 170141183460469231731687303715884105727
  %32 = lshr i128 %30, 127
  %33 = add nuw i128 %31, %32
  %34 = trunc i128 %33 to i64
  store i64 %34, ptr %0, align 8, !tbaa !5
  %35 = lshr i128 %33, 64
  %36 = trunc nuw i128 %35 to i64
  %37 = getelementptr inbounds i8, ptr %0, i64 8
  store i64 %36, ptr %37, align 8, !tbaa !5
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @mul1305(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = load i64, ptr %1, align 8, !tbaa !5
  %5 = and i64 %4, 70368744177663
  %6 = getelementptr inbounds i8, ptr %1, i64 8
  %7 = load i64, ptr %6, align 8, !tbaa !5
  %8 = and i64 %7, 70368744177663
  %9 = getelementptr inbounds i8, ptr %1, i64 16
  %10 = load i64, ptr %9, align 8, !tbaa !5
  %11 = and i64 %10, 70368744177663
  %12 = load i64, ptr %2, align 8, !tbaa !5
  %13 = and i64 %12, 17592186044415
  %14 = getelementptr inbounds i8, ptr %2, i64 8
  %15 = load i64, ptr %14, align 8, !tbaa !5
  %16 = and i64 %15, 17592186044415
  %17 = getelementptr inbounds i8, ptr %2, i64 16
  %18 = load i64, ptr %17, align 8, !tbaa !5
  %19 = and i64 %18, 4398046511103
  %20 = mul nuw nsw i64 %16, 20
  %21 = mul nuw nsw i64 %19, 20
  %22 = zext nneg i64 %5 to i128
  %23 = zext nneg i64 %13 to i128
  %24 = mul nuw nsw i128 %23, %22
  %25 = zext nneg i64 %8 to i128
  %26 = zext nneg i64 %21 to i128
  %27 = mul nuw nsw i128 %26, %25
  %28 = zext nneg i64 %11 to i128
  %29 = zext nneg i64 %20 to i128
  %30 = mul nuw nsw i128 %29, %28
  %31 = add nuw nsw i128 %30, %24
  %32 = add nuw nsw i128 %31, %27
  %33 = zext nneg i64 %16 to i128
  %34 = mul nuw nsw i128 %33, %22
  %35 = mul nuw nsw i128 %23, %25
  %36 = add nuw nsw i128 %34, %35
  %37 = mul nuw nsw i128 %26, %28
  %38 = add nuw nsw i128 %36, %37
  %39 = zext nneg i64 %19 to i128
  %40 = mul nuw nsw i128 %39, %22
  %41 = mul nuw nsw i128 %33, %25
  %42 = mul nuw nsw i128 %23, %28
  %43 = lshr i128 %32, 44
  %44 = trunc i128 %32 to i64
  %45 = and i64 %44, 17592186044415
  %46 = add nuw nsw i128 %38, %43
  %47 = lshr i128 %46, 44
  %48 = trunc i128 %46 to i64
  %49 = and i64 %48, 17592186044415
  %50 = add nuw nsw i128 %41, %42
  %51 = add nuw nsw i128 %50, %40
  %52 = add nuw nsw i128 %51, %47
  %53 = lshr i128 %52, 42
  %54 = trunc nuw nsw i128 %53 to i64
  %55 = trunc i128 %52 to i64
  %56 = and i64 %55, 4398046511103
  %57 = mul nuw nsw i64 %54, 5
  %58 = add nuw nsw i64 %57, %45
  %59 = lshr i64 %58, 44
  %60 = and i64 %58, 17592186044415
  %61 = add nuw nsw i64 %59, %49
  store i64 %60, ptr %0, align 8, !tbaa !5
  %62 = getelementptr inbounds i8, ptr %0, i64 8
  store i64 %61, ptr %62, align 8, !tbaa !5
  %63 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %56, ptr %63, align 8, !tbaa !5
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
!6 = !{!"long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
