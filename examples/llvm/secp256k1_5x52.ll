; ModuleID = 'secp256k1_5x52.c'
source_filename = "secp256k1_5x52.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: write) uwtable
define dso_local void @secp256k1_fe_mul_inner(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = load i64, ptr %1, align 8, !tbaa !5
  %5 = getelementptr inbounds i8, ptr %1, i64 8
  %6 = load i64, ptr %5, align 8, !tbaa !5
  %7 = getelementptr inbounds i8, ptr %1, i64 16
  %8 = load i64, ptr %7, align 8, !tbaa !5
  %9 = getelementptr inbounds i8, ptr %1, i64 24
  %10 = load i64, ptr %9, align 8, !tbaa !5
  %11 = getelementptr inbounds i8, ptr %1, i64 32
  %12 = load i64, ptr %11, align 8, !tbaa !5
  %13 = icmp ult i64 %4, 72057594037927936
  tail call void @llvm.assume(i1 %13)
  %14 = icmp ult i64 %6, 72057594037927936
  tail call void @llvm.assume(i1 %14)
  %15 = icmp ult i64 %8, 72057594037927936
  tail call void @llvm.assume(i1 %15)
  %16 = icmp ult i64 %10, 72057594037927936
  tail call void @llvm.assume(i1 %16)
  %17 = icmp ult i64 %12, 4503599627370496
  tail call void @llvm.assume(i1 %17)
  %18 = load i64, ptr %2, align 8, !tbaa !5
  %19 = icmp ult i64 %18, 72057594037927936
  tail call void @llvm.assume(i1 %19)
  %20 = getelementptr inbounds i8, ptr %2, i64 8
  %21 = load i64, ptr %20, align 8, !tbaa !5
  %22 = icmp ult i64 %21, 72057594037927936
  tail call void @llvm.assume(i1 %22)
  %23 = getelementptr inbounds i8, ptr %2, i64 16
  %24 = load i64, ptr %23, align 8, !tbaa !5
  %25 = icmp ult i64 %24, 72057594037927936
  tail call void @llvm.assume(i1 %25)
  %26 = getelementptr inbounds i8, ptr %2, i64 24
  %27 = load i64, ptr %26, align 8, !tbaa !5
  %28 = icmp ult i64 %27, 72057594037927936
  tail call void @llvm.assume(i1 %28)
  %29 = getelementptr inbounds i8, ptr %2, i64 32
  %30 = load i64, ptr %29, align 8, !tbaa !5
  %31 = icmp ult i64 %30, 4503599627370496
  tail call void @llvm.assume(i1 %31)
  %32 = zext nneg i64 %4 to i128
  %33 = zext nneg i64 %27 to i128
  %34 = mul nuw nsw i128 %33, %32
  %35 = zext nneg i64 %6 to i128
  %36 = zext nneg i64 %24 to i128
  %37 = mul nuw nsw i128 %36, %35
  %38 = zext nneg i64 %8 to i128
  %39 = zext nneg i64 %21 to i128
  %40 = mul nuw nsw i128 %39, %38
  %41 = zext nneg i64 %10 to i128
  %42 = zext nneg i64 %18 to i128
  %43 = mul nuw nsw i128 %42, %41
  %44 = zext nneg i64 %12 to i128
  %45 = zext nneg i64 %30 to i128
  %46 = mul nuw nsw i128 %45, %44
  %47 = and i128 %46, 18446744073709551615
  %48 = mul nuw nsw i128 %47, 68719492368
  %49 = add nuw nsw i128 %40, %43
  %50 = add nuw nsw i128 %49, %37
  %51 = add nuw nsw i128 %50, %34
  %52 = add nuw nsw i128 %51, %48
  %53 = lshr i128 %46, 64
  %54 = lshr i128 %52, 52
  %55 = mul nuw nsw i128 %45, %32
  %56 = mul nuw nsw i128 %33, %35
  %57 = mul nuw nsw i128 %36, %38
  %58 = mul nuw nsw i128 %39, %41
  %59 = mul nuw nsw i128 %42, %44
  %60 = mul nuw nsw i128 %53, 281475040739328
  %61 = add nuw nsw i128 %58, %59
  %62 = add nuw nsw i128 %61, %57
  %63 = add nuw nsw i128 %62, %56
  %64 = add nuw nsw i128 %63, %55
  %65 = add nuw nsw i128 %64, %60
  %66 = add nuw nsw i128 %65, %54
  %67 = trunc i128 %66 to i64
  %68 = lshr i128 %66, 52
  %69 = lshr i64 %67, 48
  %70 = and i64 %69, 15
  %71 = mul nuw nsw i128 %42, %32
  %72 = mul nuw nsw i128 %45, %35
  %73 = mul nuw nsw i128 %33, %38
  %74 = mul nuw nsw i128 %36, %41
  %75 = mul nuw nsw i128 %39, %44
  %76 = add nuw nsw i128 %74, %75
  %77 = add nuw nsw i128 %76, %73
  %78 = add nuw nsw i128 %77, %72
  %79 = add nuw nsw i128 %78, %68
  %80 = trunc i128 %79 to i64
  %81 = lshr i128 %79, 52
  %82 = shl i64 %80, 4
  %83 = and i64 %82, 72057594037927920
  %84 = or disjoint i64 %83, %70
  %85 = zext nneg i64 %84 to i128
  %86 = mul nuw nsw i128 %85, 4294968273
  %87 = add nuw nsw i128 %86, %71
  %88 = trunc i128 %87 to i64
  %89 = and i64 %88, 4503599627370495
  store i64 %89, ptr %0, align 8, !tbaa !5
  %90 = lshr i128 %87, 52
  %91 = load i64, ptr %20, align 8, !tbaa !5
  %92 = zext i64 %91 to i128
  %93 = mul nuw nsw i128 %92, %32
  %94 = load i64, ptr %2, align 8, !tbaa !5
  %95 = zext i64 %94 to i128
  %96 = mul nuw nsw i128 %95, %35
  %97 = add nuw nsw i128 %96, %93
  %98 = load i64, ptr %29, align 8, !tbaa !5
  %99 = zext i64 %98 to i128
  %100 = mul nuw nsw i128 %99, %38
  %101 = load i64, ptr %26, align 8, !tbaa !5
  %102 = zext i64 %101 to i128
  %103 = mul nuw nsw i128 %102, %41
  %104 = add nuw nsw i128 %103, %100
  %105 = load i64, ptr %23, align 8, !tbaa !5
  %106 = zext i64 %105 to i128
  %107 = mul nuw nsw i128 %106, %44
  %108 = add nuw nsw i128 %104, %107
  %109 = add nuw nsw i128 %108, %81
  %110 = and i128 %109, 4503599627370495
  %111 = mul nuw nsw i128 %110, 68719492368
  %112 = add nuw nsw i128 %97, %111
  %113 = add nuw nsw i128 %112, %90
  %114 = lshr i128 %109, 52
  %115 = trunc i128 %113 to i64
  %116 = and i64 %115, 4503599627370495
  %117 = getelementptr inbounds i8, ptr %0, i64 8
  store i64 %116, ptr %117, align 8, !tbaa !5
  %118 = lshr i128 %113, 52
  %119 = load i64, ptr %23, align 8, !tbaa !5
  %120 = zext i64 %119 to i128
  %121 = mul nuw nsw i128 %120, %32
  %122 = load i64, ptr %20, align 8, !tbaa !5
  %123 = zext i64 %122 to i128
  %124 = mul nuw nsw i128 %123, %35
  %125 = add nuw nsw i128 %124, %121
  %126 = load i64, ptr %2, align 8, !tbaa !5
  %127 = zext i64 %126 to i128
  %128 = mul nuw nsw i128 %127, %38
  %129 = add nuw nsw i128 %125, %128
  %130 = load i64, ptr %29, align 8, !tbaa !5
  %131 = zext i64 %130 to i128
  %132 = mul nuw nsw i128 %131, %41
  %133 = load i64, ptr %26, align 8, !tbaa !5
  %134 = zext i64 %133 to i128
  %135 = mul nuw nsw i128 %134, %44
  %136 = add nuw nsw i128 %132, %114
  %137 = add nuw nsw i128 %136, %135
  %138 = and i128 %137, 18446744073709551615
  %139 = mul nuw nsw i128 %138, 68719492368
  %140 = add nuw nsw i128 %129, %139
  %141 = add nuw nsw i128 %140, %118
  %142 = lshr i128 %137, 64
  %143 = trunc i128 %141 to i64
  %144 = and i64 %143, 4503599627370495
  %145 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %144, ptr %145, align 8, !tbaa !5
  %146 = lshr i128 %141, 52
  %147 = mul nuw nsw i128 %142, 281475040739328
  %148 = and i128 %52, 4503599627370495
  %149 = add nuw nsw i128 %147, %148
  %150 = add nuw nsw i128 %149, %146
  %151 = trunc i128 %150 to i64
  %152 = and i64 %151, 4503599627370495
  %153 = getelementptr inbounds i8, ptr %0, i64 24
  store i64 %152, ptr %153, align 8, !tbaa !5
  %154 = lshr i128 %150, 52
  %155 = and i128 %66, 281474976710655
  %156 = add nuw nsw i128 %154, %155
  %157 = trunc nuw nsw i128 %156 to i64
  %158 = getelementptr inbounds i8, ptr %0, i64 32
  store i64 %157, ptr %158, align 8, !tbaa !5
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #1

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: write) uwtable
define dso_local void @secp256k1_fe_sqr_inner(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1) local_unnamed_addr #0 {
  %3 = load i64, ptr %1, align 8, !tbaa !5
  %4 = getelementptr inbounds i8, ptr %1, i64 8
  %5 = load i64, ptr %4, align 8, !tbaa !5
  %6 = getelementptr inbounds i8, ptr %1, i64 16
  %7 = load i64, ptr %6, align 8, !tbaa !5
  %8 = getelementptr inbounds i8, ptr %1, i64 24
  %9 = load i64, ptr %8, align 8, !tbaa !5
  %10 = getelementptr inbounds i8, ptr %1, i64 32
  %11 = load i64, ptr %10, align 8, !tbaa !5
  %12 = icmp ult i64 %3, 72057594037927936
  tail call void @llvm.assume(i1 %12)
  %13 = icmp ult i64 %5, 72057594037927936
  tail call void @llvm.assume(i1 %13)
  %14 = icmp ult i64 %7, 72057594037927936
  tail call void @llvm.assume(i1 %14)
  %15 = icmp ult i64 %9, 72057594037927936
  tail call void @llvm.assume(i1 %15)
  %16 = icmp ult i64 %11, 4503599627370496
  tail call void @llvm.assume(i1 %16)
  %17 = shl nuw nsw i64 %3, 1
  %18 = zext nneg i64 %17 to i128
  %19 = zext nneg i64 %9 to i128
  %20 = mul nuw nsw i128 %19, %18
  %21 = shl nuw nsw i64 %5, 1
  %22 = zext nneg i64 %21 to i128
  %23 = zext nneg i64 %7 to i128
  %24 = mul nuw nsw i128 %22, %23
  %25 = add nuw nsw i128 %20, %24
  %26 = zext nneg i64 %11 to i128
  %27 = mul nuw nsw i128 %26, %26
  %28 = and i128 %27, 18446744073709551615
  %29 = mul nuw nsw i128 %28, 68719492368
  %30 = add nuw nsw i128 %25, %29
  %31 = lshr i128 %27, 64
  %32 = lshr i128 %30, 52
  %33 = shl nuw nsw i64 %11, 1
  %34 = zext nneg i64 %3 to i128
  %35 = zext nneg i64 %33 to i128
  %36 = mul nuw nsw i128 %35, %34
  %37 = mul nuw nsw i128 %19, %22
  %38 = mul nuw nsw i128 %23, %23
  %39 = mul nuw nsw i128 %31, 281475040739328
  %40 = add nuw nsw i128 %37, %38
  %41 = add nuw nsw i128 %40, %36
  %42 = add nuw nsw i128 %41, %39
  %43 = add nuw nsw i128 %42, %32
  %44 = trunc i128 %43 to i64
  %45 = lshr i128 %43, 52
  %46 = lshr i64 %44, 48
  %47 = and i64 %46, 15
  %48 = mul nuw nsw i128 %34, %34
  %49 = zext nneg i64 %5 to i128
  %50 = mul nuw nsw i128 %35, %49
  %51 = shl nuw nsw i64 %7, 1
  %52 = zext nneg i64 %51 to i128
  %53 = mul nuw nsw i128 %52, %19
  %54 = add nuw nsw i128 %50, %53
  %55 = add nuw nsw i128 %54, %45
  %56 = trunc i128 %55 to i64
  %57 = lshr i128 %55, 52
  %58 = shl i64 %56, 4
  %59 = and i64 %58, 72057594037927920
  %60 = or disjoint i64 %59, %47
  %61 = zext nneg i64 %60 to i128
  %62 = mul nuw nsw i128 %61, 4294968273
  %63 = add nuw nsw i128 %62, %48
  %64 = trunc i128 %63 to i64
  %65 = and i64 %64, 4503599627370495
  store i64 %65, ptr %0, align 8, !tbaa !5
  %66 = lshr i128 %63, 52
  %67 = mul nuw nsw i128 %18, %49
  %68 = mul nuw nsw i128 %35, %23
  %69 = mul nuw nsw i128 %19, %19
  %70 = add nuw nsw i128 %68, %69
  %71 = add nuw nsw i128 %70, %57
  %72 = and i128 %71, 4503599627370495
  %73 = mul nuw nsw i128 %72, 68719492368
  %74 = add nuw nsw i128 %73, %67
  %75 = add nuw nsw i128 %74, %66
  %76 = lshr i128 %71, 52
  %77 = trunc i128 %75 to i64
  %78 = and i64 %77, 4503599627370495
  %79 = getelementptr inbounds i8, ptr %0, i64 8
  store i64 %78, ptr %79, align 8, !tbaa !5
  %80 = lshr i128 %75, 52
  %81 = mul nuw nsw i128 %23, %18
  %82 = mul nuw nsw i128 %49, %49
  %83 = add nuw nsw i128 %81, %82
  %84 = mul nuw nsw i128 %35, %19
  %85 = add nuw nsw i128 %76, %84
  %86 = and i128 %85, 18446744073709551615
  %87 = mul nuw nsw i128 %86, 68719492368
  %88 = add nuw nsw i128 %83, %87
  %89 = add nuw nsw i128 %88, %80
  %90 = lshr i128 %85, 64
  %91 = trunc i128 %89 to i64
  %92 = and i64 %91, 4503599627370495
  %93 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %92, ptr %93, align 8, !tbaa !5
  %94 = lshr i128 %89, 52
  %95 = mul nuw nsw i128 %90, 281475040739328
  %96 = and i128 %30, 4503599627370494
  %97 = add nuw nsw i128 %95, %96
  %98 = add nuw nsw i128 %97, %94
  %99 = trunc i128 %98 to i64
  %100 = and i64 %99, 4503599627370495
  %101 = getelementptr inbounds i8, ptr %0, i64 24
  store i64 %100, ptr %101, align 8, !tbaa !5
  %102 = lshr i128 %98, 52
  %103 = and i128 %43, 281474976710655
  %104 = add nuw nsw i128 %102, %103
  %105 = trunc nuw nsw i128 %104 to i64
  %106 = getelementptr inbounds i8, ptr %0, i64 32
  store i64 %105, ptr %106, align 8, !tbaa !5
  ret void
}

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite, inaccessiblemem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

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
